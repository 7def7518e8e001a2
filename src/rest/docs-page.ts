/**
 * `GET /docs`: the OpenAPI document, browsable with Swagger UI served from node_modules
 * (swagger-ui-dist), so the page works offline: no CDN, no online validator badge. Only the
 * few files the page needs are served, by fixed name, read once and kept in memory.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { jsonAnswer, operational, type OpenApiPaths } from '../openapi/vocabulary.ts';
import { bufferedResponse } from '../responses.ts';

export const DOCS_PATH = '/docs';
export const OPENAPI_PATH = '/openapi.json';

const ASSETS_PATH = `${DOCS_PATH}/assets`;

/**
 * Swagger UI's files the page loads, by the name it loads them under. A Map, since the name
 * comes from the request path: `/docs/assets/constructor` must find nothing.
 */
const DIST_FILES = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
  ['favicon-16x16.png', 'image/png'],
]);

/** Starts Swagger UI on the document; a file of its own, so the page needs no inline script. */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Catalogue gateway API</title>
    <link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css" />
    <link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-32x32.png" sizes="32x32" />
    <link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-16x16.png" sizes="16x16" />
  </head>
  <body>
    <noscript>
      Swagger UI needs JavaScript; the document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.
    </noscript>
    <div id="swagger-ui"></div>
    <script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${ASSETS_PATH}/init.js"></script>
  </body>
</html>
`;

/** Everything from this origin; Swagger UI sets inline styles and uses data: images. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

interface Asset {
  body: Uint8Array<ArrayBuffer> | string;
  contentType: string;
}

export interface DocsPages {
  /** The response for a path under /docs or /openapi.json, or undefined when it is neither. */
  answer(pathname: string): Promise<Response | undefined>;
}

/** Serves the document (`openApiJson`, built once by the caller) and the page. */
export function createDocsPages(openApiJson: string): DocsPages {
  const distDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, Promise<Asset>>();

  function asset(name: string): Promise<Asset> | undefined {
    if (name === 'init.js') {
      return Promise.resolve({ body: INIT_SCRIPT, contentType: 'text/javascript; charset=utf-8' });
    }
    const contentType = DIST_FILES.get(name);
    if (contentType === undefined) return undefined;
    let loaded = assets.get(name);
    if (!loaded) {
      loaded = readFile(join(distDir, name)).then((body) => ({
        body: new Uint8Array(body),
        contentType,
      }));
      // A failed read is not remembered: the next request tries again.
      loaded.catch(() => assets.delete(name));
      assets.set(name, loaded);
    }
    return loaded;
  }

  return {
    async answer(pathname) {
      if (pathname === OPENAPI_PATH) {
        return bufferedResponse(200, openApiJson, {
          'content-type': 'application/json; charset=utf-8',
          'cache-control': 'no-cache',
        });
      }
      if (pathname === DOCS_PATH || pathname === `${DOCS_PATH}/`) {
        return bufferedResponse(200, PAGE, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-cache',
          'content-security-policy': CONTENT_SECURITY_POLICY,
          'x-content-type-options': 'nosniff',
        });
      }
      if (!pathname.startsWith(`${ASSETS_PATH}/`)) return undefined;
      const found = asset(pathname.slice(ASSETS_PATH.length + 1));
      if (!found) return undefined;
      const { body, contentType } = await found;
      return bufferedResponse(200, body, {
        'content-type': contentType,
        'cache-control': 'public, max-age=3600',
        'x-content-type-options': 'nosniff',
      });
    },
  };
}

export const DOCS_OPENAPI: OpenApiPaths = {
  [OPENAPI_PATH]: {
    get: operational('openapi', 'This document', 'The OpenAPI 3.1 document of the service.', {
      '200': jsonAnswer('The document.', { type: 'object' }),
    }),
  },
  [DOCS_PATH]: {
    get: operational('docs', 'API documentation', 'This document, browsable (Swagger UI).', {
      '200': {
        description: 'An HTML page.',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    }),
  },
};
