/**
 * What the port answers between binding and being ready (the database being opened, migrated,
 * seeded): alive on /healthz, not ready on /readyz with the step under way as its reason, and
 * 503 with Retry-After everywhere else. `serve` binds first so that a port already taken is found
 * before minutes of seeding, not after.
 */
import { randomUUID } from 'node:crypto';
import { createServerAdapter } from '@whatwg-node/server';
import type { PreparationStep } from '../db/bootstrap.ts';
import { errorResponse, jsonResponse } from '../responses.ts';

export type StartupStep = 'opening database' | PreparationStep;

/** /readyz meanwhile, in the vocabulary of the app's own readiness (docs/openapi.json). */
const READINESS: Record<StartupStep, { status: 'migrating' | 'unavailable'; reason: string }> = {
  'opening database': { status: 'unavailable', reason: 'starting: opening the database' },
  migrating: { status: 'migrating', reason: 'starting: applying migrations' },
  seeding: { status: 'unavailable', reason: 'starting: seeding the empty catalogue' },
};

export function createStartupResponder() {
  let step: StartupStep = 'opening database';
  const listener = createServerAdapter((request: Request) => {
    switch (new URL(request.url).pathname) {
      case '/healthz':
        return jsonResponse(200, { status: 'ok' });
      case '/readyz':
        return jsonResponse(503, READINESS[step]);
      default:
        return errorResponse(503, `the service is ${READINESS[step].reason}`, randomUUID());
    }
  });
  return {
    listener,
    setStep(next: StartupStep) {
      step = next;
    },
  };
}
