/** What a partner client id may look like: api_clients accepts nothing else. */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Stands in a log line for an id no client can have (up to 8 KiB of anything). */
const MALFORMED_CLIENT_ID = '(malformed)';

/** A client id a caller sent, as a log line may show it: never longer than a real one. */
export function loggableClientId(clientId: string): string {
  return CLIENT_ID_PATTERN.test(clientId) ? clientId : MALFORMED_CLIENT_ID;
}
