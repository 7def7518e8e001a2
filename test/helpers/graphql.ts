/** POSTs a GraphQL operation to an app in-process, the way a client's request arrives. */
import type { App } from '../../src/app.ts';

export async function postGraphql(
  app: App,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<Response> {
  return await app.fetch(
    new Request('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    }),
  );
}
