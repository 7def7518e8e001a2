/**
 * CONTRACT (to be implemented by the seeds work): fills an empty, migrated database with the
 * deterministic catalogue at a scale.
 */
import type { DatabaseHandle } from '../src/db/client.ts';
import type { SeedScale } from '../src/config.ts';

/** Seed data's "today": fixed so that the same seed and scale give identical data on any day. */
export const SEED_REFERENCE_DATE = '2026-11-01';
export const DEFAULT_SEED = 1;

export interface SeedOptions {
  scale: SeedScale;
  seed?: number;
  /** Progress output: a bar on a terminal, plain lines otherwise, nothing when false. */
  progress?: NodeJS.WritableStream | false;
}

export interface SeedReport {
  scale: SeedScale;
  seed: number;
  /** Rows written per table. */
  rows: Record<string, number>;
  milliseconds: number;
}

export async function seedCatalogue(
  _database: DatabaseHandle,
  _options: SeedOptions,
): Promise<SeedReport> {
  throw new Error('not implemented yet');
}

/** The sample catalogue's partner client (sample data only; documented in the README). */
export const DEMO_CLIENT = { id: 'demo-partner', secret: 'demo-secret', ref: 'demo-ref' } as const;
