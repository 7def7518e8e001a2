/**
 * The GraphQL document and variables the REST layer runs for a request, built the way
 * src/rest/engine.ts builds them, so W5 can send the very same operation to /graphql.
 */
import { print } from 'graphql';
import { buildDocument } from '../src/rest/document.ts';
import { parseFields } from '../src/rest/fields.ts';
import { readParams } from '../src/rest/params.ts';
import { choose, selectedPaths } from '../src/rest/resources.ts';
import type { RestRoute } from '../src/rest/route.ts';

export function restOperation(
  route: RestRoute,
  path: string,
): { query: string; variables: Record<string, unknown> } {
  const url = new URL(path, 'http://bench');
  const params = readParams(route.params, url.searchParams, {});
  const fields = typeof params.fields === 'string' ? parseFields(params.fields) : undefined;
  const plan = route.plan(params);
  const document = buildDocument(plan.shape, selectedPaths(choose(route.resource, fields)));
  return { query: print(document), variables: plan.variables };
}
