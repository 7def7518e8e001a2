/** What every part of the feed benchmark works with. */
import type pg from 'pg';
import type { Submitter } from './submit.ts';

export interface PartContext {
  /** Writes the feeds (COPY out) and reads the catalogue. */
  client: pg.ClientBase;
  /** Connections of the catalogue's pool, for the baseline's transaction. */
  pool: pg.Pool;
  submitter: Submitter;
  /** A temporary directory for the feed files, removed after the run. */
  directory: string;
  log: (line: string) => void;
}
