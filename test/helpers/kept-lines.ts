/** A logger that keeps its lines, parsed, for a test to read what was logged. */
import { Writable } from 'node:stream';
import { pino, type Level } from 'pino';

/** A pino logger keeping its lines at `level` and above, as JSON objects. */
export function keptLines(level: Level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  return { lines, logger };
}
