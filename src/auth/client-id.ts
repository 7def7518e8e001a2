import { randomBytes } from 'node:crypto';

/** What a client id may look like: api_clients accepts nothing else. */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** What a ref a partner's client owns may look like: api_client_refs accepts nothing else. */
export const OWNED_REF_PATTERN = CLIENT_ID_PATTERN;

/**
 * A new client id: its kind (and shop) readable at a glance in logs, and a random part, so
 * that an id says nothing guessable about the clients beside it and is never reused.
 */
export function generateClientId(shopId: number | null): string {
  const kind = shopId === null ? 'partner' : `shop-${shopId}`;
  return `${kind}-${randomBytes(9).toString('base64url')}`;
}

/** Stands in a log line for an id no client can have (up to 8 KiB of anything). */
const MALFORMED_CLIENT_ID = '(malformed)';

/** A client id a caller sent, as a log line may show it: never longer than a real one. */
export function loggableClientId(clientId: string): string {
  return CLIENT_ID_PATTERN.test(clientId) ? clientId : MALFORMED_CLIENT_ID;
}
