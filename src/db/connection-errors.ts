/**
 * Recognises a database that cannot be reached (refused, unknown host, timed out, dropped),
 * as opposed to a query that failed: the first is a 503 to retry, the second a defect.
 */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ECONNRESET',
  'EPIPE',
  // Postgres itself: shutting down, starting up, too many connections.
  '57P01',
  '57P03',
  '53300',
]);

const CONNECTION_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|connection is insecure|Client has encountered a connection error/i;

/** The code (or 'timeout'/'connection') of the network failure behind an error, if any. */
export function databaseConnectionFailure(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return code;
    if (CONNECTION_MESSAGES.test(current.message)) {
      return /timeout/i.test(current.message) ? 'timeout' : 'connection';
    }
    // An AggregateError (IPv4 and IPv6 both refused) holds the codes in its errors.
    if (current instanceof AggregateError) return databaseConnectionFailure(current.errors[0]);
  }
  return undefined;
}
