/** `/healthz`: alive as soon as the process answers; it reads nothing, so it cannot fail. */
import { jsonAnswer, operational, type OpenApiPaths } from '../openapi/vocabulary.ts';
import { jsonResponse } from '../responses.ts';

export const LIVENESS_PATH = '/healthz';

export function liveness(): Response {
  return jsonResponse(200, { status: 'ok' });
}

export const LIVENESS_OPENAPI: OpenApiPaths = {
  [LIVENESS_PATH]: {
    get: operational('healthz', 'Liveness', 'Answers as soon as the process runs.', {
      '200': jsonAnswer('Alive.', {
        type: 'object',
        required: ['status'],
        properties: { status: { const: 'ok' } },
      }),
    }),
  },
};
