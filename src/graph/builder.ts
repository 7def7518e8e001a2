/**
 * The Pothos builder: plugin configuration only. Types live one per file in ./types.
 */
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import RelayPlugin from '@pothos/plugin-relay';
import type { RequestContext } from '../context.ts';

export const builder = new SchemaBuilder<{ Context: RequestContext }>({
  plugins: [RelayPlugin, DataloaderPlugin],
  relay: {},
});

builder.queryType({ description: 'The catalogue: products, offers, shops and categories.' });
