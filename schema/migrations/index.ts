/**
 * Every migration, by name, in the order they run. A new migration file is added here too
 * (test/migrations.test.ts fails when a file in this folder is missing from the list).
 */
import type { Migration } from 'kysely';
import * as catalogue from './0001_catalogue.ts';

export const migrations: Record<string, Migration> = {
  '0001_catalogue': catalogue,
};
