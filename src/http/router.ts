/**
 * The handler table's lookup: a path answered by exactly one handler, else by the first
 * lookup that claims it (a file under a prefix, a REST route's pattern), else not found.
 */
import type { Handler } from './handler.ts';

export interface Routed {
  handler: Handler;
  pathParams: Record<string, string>;
}

/** Claims a path by looking it up; undefined leaves it to the next lookup. */
export type Lookup = (pathname: string) => Promise<Routed | undefined> | Routed | undefined;

export interface HandlerTable {
  exact: ReadonlyMap<string, Handler>;
  lookups: readonly Lookup[];
  notFound: Handler;
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export function createRouter({ exact, lookups, notFound }: HandlerTable) {
  return async function route(pathname: string): Promise<Routed> {
    const handler = exact.get(pathname);
    if (handler) return { handler, pathParams: NO_PARAMS };
    for (const lookup of lookups) {
      const routed = await lookup(pathname);
      if (routed) return routed;
    }
    return { handler: notFound, pathParams: NO_PARAMS };
  };
}
