/**
 * Recognises a database that cannot serve: it cannot be reached (refused, unknown host, timed
 * out, dropped connection), the server is going down or coming up, or what we serve from is
 * gone (the database dropped, its tables missing). Those are a 503 to retry once the server or
 * the operator has put things right; any other failed query is a defect of ours (500).
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
]);

/** SQLSTATEs the server answers with when it cannot serve us, whatever the statement. */
const SERVER_STATES = new Set([
  // Shutting down (administrator, crash), starting up, the database dropped while connected,
  // a session closed for idling.
  '57P01',
  '57P02',
  '57P03',
  '57P04',
  '57P05',
  // The database, its schema or a table does not exist: a deployment fault (dropped, not
  // migrated), never a statement of ours on a migrated database.
  '3D000',
  '3F000',
  '42P01',
  // Our role was dropped or its password changed under us.
  '28000',
  '28P01',
]);

/**
 * Whole SQLSTATE classes: 08 connection exception, 53 insufficient resources (too many
 * connections, out of memory, disk full). A protocol violation (08P01) is a defect instead.
 */
const SERVER_STATE_CLASSES = /^(08(?!P01)|53)[0-9A-Z]{3}$/;

const CONNECTION_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|connection is insecure|Client has encountered a connection error/i;

/**
 * Why the database cannot serve, if that is why: a network code ('ECONNREFUSED'), 'timeout' or
 * 'connection', or the server's words and SQLSTATE ('database "x" does not exist (3D000)').
 */
export function databaseConnectionFailure(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (NETWORK_CODES.has(code)) return code;
      if (SERVER_STATES.has(code) || SERVER_STATE_CLASSES.test(code)) {
        return `${current.message} (${code})`;
      }
    }
    if (CONNECTION_MESSAGES.test(current.message)) {
      return /timeout/i.test(current.message) ? 'timeout' : 'connection';
    }
    // An AggregateError (IPv4 and IPv6 both refused) holds the codes in its errors.
    if (current instanceof AggregateError) return databaseConnectionFailure(current.errors[0]);
  }
  return undefined;
}

/**
 * Whether a statement was cancelled (SQLSTATE 57014, query_canceled): it ran past
 * STATEMENT_TIMEOUT_MS, or an operator cancelled it. The request took too long; that is no
 * defect of ours either, and the client may retry (src/errors.ts: TIMEOUT, a 503).
 */
export function statementCanceled(error: unknown): boolean {
  return hasSqlState(error, '57014');
}

/** Whether the error, or one it was caused by, is the server's with this SQLSTATE. */
function hasSqlState(error: unknown, sqlState: string): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if ((current as { code?: unknown }).code === sqlState) return true;
  }
  return false;
}

/**
 * Whether the server refused a text value it cannot store (SQLSTATE 22021,
 * character_not_in_repertoire): a NUL character (U+0000), which no Postgres text can hold,
 * in a value the client gave. The client's mistake, whichever argument carried it.
 */
export function unstorableText(error: unknown): boolean {
  return hasSqlState(error, '22021');
}
