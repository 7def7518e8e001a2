/**
 * GraphQL over WebSocket held to the rules of /graphql over HTTP (docs/api.md, "Live
 * updates"): a connection's token, sent in graphql-ws's `connection_init` payload as
 * `{ "authorization": "Bearer …" }` (browsers cannot set a WebSocket's headers; else the
 * upgrade request's Authorization header), must be valid when sent, and each operation on the
 * socket counts against its caller's request limit as a request to /graphql does.
 */
import type { Config } from '../config.ts';
import { authenticateAuthorization, invalidTokenMessage, type Caller } from './caller.ts';
import type { ClientDirectory } from './client-directory.ts';
import { rateLimitSubject, type RateLimiter } from './rate-limiter.ts';

export interface SocketAccessDependencies {
  config: Pick<Config, 'tokenSecrets'>;
  /** The clients that exist: a token of any other is refused, as over HTTP. */
  clients: Pick<ClientDirectory, 'stands'>;
  limiter: RateLimiter;
}

export function createSocketAccess({ config, clients, limiter }: SocketAccessDependencies) {
  return {
    /** The connection's caller, or why its token is refused (what the socket is closed with). */
    async admit(
      authorization: string | undefined,
    ): Promise<{ caller: Caller } | { refused: string }> {
      const caller = await authenticateAuthorization(authorization, config, { clients });
      return caller.kind === 'invalid'
        ? { refused: invalidTokenMessage(caller.reason) }
        : { caller };
    },
    /** Seconds to wait when one more operation is over the caller's limit; else undefined. */
    async overLimit(caller: Caller, clientIp: string | undefined): Promise<number | undefined> {
      const decision = await limiter.take(rateLimitSubject(caller, clientIp));
      return decision.allowed ? undefined : decision.retryAfterSeconds;
    },
  };
}
