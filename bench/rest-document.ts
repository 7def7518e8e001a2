/**
 * The GraphQL document and variables the REST layer runs for a request (src/rest/engine.ts
 * restOperation), so W5 can send the very same operation to /graphql.
 */
import { print } from 'graphql';
import { restOperation as operationOf } from '../src/rest/engine.ts';
import { readParams } from '../src/rest/params.ts';
import type { RestRoute } from '../src/rest/route.ts';

export function restOperation(
  route: RestRoute,
  path: string,
): { query: string; variables: Record<string, unknown> } {
  const url = new URL(path, 'http://bench');
  const { plan, buildDocument } = operationOf(
    route,
    readParams(route.params, url.searchParams, {}),
  );
  return { query: print(buildDocument()), variables: plan.variables };
}
