/**
 * What `serve` answers on its port before the database is ready: alive, never ready, and a
 * 503 to retry for everything else.
 */
import { describe, expect, it } from 'vitest';
import { createStartupResponder } from '../../src/cli/startup-responder.ts';

const BASE = 'http://localhost:4000';

describe('the port while the service starts', () => {
  it('answers /healthz 200 and /readyz 503 naming the step under way', async () => {
    const startup = createStartupResponder();
    expect((await startup.listener.fetch(`${BASE}/healthz`)).status).toBe(200);

    const steps = [
      ['opening database', 'unavailable', 'starting: opening the database'],
      ['migrating', 'migrating', 'starting: applying migrations'],
      ['seeding', 'unavailable', 'starting: seeding the empty catalogue'],
    ] as const;
    for (const [step, status, reason] of steps) {
      startup.setStep(step);
      const ready = await startup.listener.fetch(`${BASE}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status, reason });
    }
  });

  it('answers GraphQL, REST and the rest with 503, Retry-After and the error body', async () => {
    const startup = createStartupResponder();
    startup.setStep('seeding');
    for (const path of ['/graphql', '/products?market=se', '/metrics']) {
      const response = await startup.listener.fetch(`${BASE}${path}`);
      expect(response.status, path).toBe(503);
      expect(Number(response.headers.get('retry-after')), path).toBeGreaterThan(0);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('http.503');
      expect(body.error.message).toBe('the service is starting: seeding the empty catalogue');
    }
  });
});
