/**
 * GraphiQL served entirely from here, so /graphql works without reaching any other host (yoga's
 * own page loads its files from a CDN). The files are those of @graphql-yoga/render-graphiql,
 * yoga's GraphiQL build; each is served on its own under `/graphiql/<hash>/`, the hash being of
 * their contents, so a browser keeps them for good and a new version gets new paths. The
 * package's 9 MB are imported on the first request for the page or a file: a service nobody
 * browses never loads them.
 */
import { createHash } from 'node:crypto';
import type { GraphiQLOptions } from 'graphql-yoga';
import { bufferedResponse } from '../responses.ts';

export const GRAPHIQL_ASSETS_PATH = '/graphiql';

const JAVASCRIPT = 'text/javascript; charset=utf-8';

/** Each Monaco editor worker's file, by the label Monaco asks for the worker with. */
const WORKER_FILES = {
  editorWorkerService: 'editor.worker.js',
  json: 'json.worker.js',
  graphql: 'graphql.worker.js',
};

/**
 * A press on a tab switches to it, with the mouse too. GraphiQL's tabs are motion's
 * `Reorder.Item`s, draggable along the tab bar with the bar as their drag constraints. Whenever
 * a tab or the bar changes size (the web fonts arriving after the first render; a resized
 * window; the docs panel opening), motion rescales each tab's drag offset within the new
 * constraints, and the offset of a tab at rest comes out hundreds of pixels away from zero.
 * GraphiQL's CSS hides the offset (`.graphiql-tab:not(:focus-within) { transform: none
 * !important }`) until the tab holds focus, which a mouse press gives it: on mousedown the tab
 * jumps aside, the release lands on the bar, and the click goes to the bar, not the tab's
 * button. So before a tab takes the press or the focus, its offset (the `x` and `y` motion
 * values Reorder.Item hands its element in `style`, reached through React's fiber, as motion
 * keeps them nowhere else) goes back to zero, and the element's transform at once, as motion
 * would only write it on the next frame. A drag then starts from the tab's place, and
 * `dragSnapToOrigin` brings it back to zero after one.
 */
const TAB_PRESS_SCRIPT = `(function () {
  function offsetOf(element) {
    var fiberKey = Object.keys(element).find(function (key) {
      return key.indexOf('__reactFiber$') === 0;
    });
    for (var fiber = fiberKey && element[fiberKey]; fiber; fiber = fiber.return) {
      var style = fiber.memoizedProps && fiber.memoizedProps.style;
      if (style && style.x && typeof style.x.jump === 'function') return style;
    }
    return undefined;
  }
  function settle(event) {
    var tab = event.target instanceof Element ? event.target.closest('.graphiql-tab') : null;
    var offset = tab && offsetOf(tab);
    if (!offset || (offset.x.get() === 0 && (!offset.y || offset.y.get() === 0))) return;
    offset.x.jump(0);
    if (offset.y) offset.y.jump(0);
    tab.style.transform = 'none';
  }
  document.addEventListener('pointerdown', settle, true);
  document.addEventListener('focusin', settle, true);
})();
`;

/**
 * Starts GraphiQL on the options the page carries; a file of its own, so the page runs no
 * inline script. Workers load from this script's own directory, hence from this origin.
 */
const START_SCRIPT = `${TAB_PRESS_SCRIPT}(function () {
  var directory = document.currentScript.src;
  var workerFiles = ${JSON.stringify(WORKER_FILES)};
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (moduleId, label) {
      return new URL(workerFiles[label], directory).href;
    },
  };
  var options = JSON.parse(document.getElementById('graphiql-options').textContent);
  // GraphiQL opens the first default tab with its query but an empty variables editor; on a
  // first visit (no saved tabs, no query in the URL) it is given that tab's variables.
  var firstVisit =
    localStorage.getItem('graphiql:tabState') === null &&
    !new URLSearchParams(location.search).has('query');
  if (firstVisit && options.defaultTabs && options.defaultTabs.length > 0) {
    options.variables = options.defaultTabs[0].variables;
  }
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
})();
`;

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
  <rect width="32" height="32" rx="7" fill="#0b3d5c"/>
  <path d="M16 9 9 22h14z" fill="none" stroke="#fff" stroke-width="2"/>
  <g fill="#f6a821"><circle cx="16" cy="9" r="3.5"/><circle cx="9" cy="22" r="3.5"/><circle cx="23" cy="22" r="3.5"/></g>
</svg>
`;

/**
 * Nothing from another origin. GraphiQL and Monaco set inline styles and use data: fonts and
 * images. (A meta policy, since yoga writes the page's headers; frame-ancestors needs a header.)
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; worker-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

interface Asset {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
}

interface LoadedAssets {
  /** `/graphiql/<hash>`, where every file is. */
  directory: string;
  files: Map<string, Asset>;
}

export interface GraphiQLAssets {
  /** yoga's `renderGraphiQL`: a small page loading the files from their hashed paths. */
  renderPage(options: GraphiQLOptions): Promise<string>;
  /** The response for a path under /graphiql/, or undefined when no file has that path. */
  answer(pathname: string): Promise<Response | undefined>;
}

export function createGraphiQLAssets(): GraphiQLAssets {
  let loading: Promise<LoadedAssets> | undefined;

  function loaded(): Promise<LoadedAssets> {
    if (!loading) {
      loading = loadAssets();
      // A failed import is not remembered: the next request tries again.
      loading.catch(() => (loading = undefined));
    }
    return loading;
  }

  return {
    async renderPage(options) {
      return pageHtml((await loaded()).directory, options);
    },
    async answer(pathname) {
      if (!pathname.startsWith(`${GRAPHIQL_ASSETS_PATH}/`)) return undefined;
      const { directory, files } = await loaded();
      const file = pathname.startsWith(`${directory}/`)
        ? files.get(pathname.slice(directory.length + 1))
        : undefined;
      if (!file) return undefined;
      return bufferedResponse(200, file.body, {
        'content-type': file.contentType,
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      });
    },
  };
}

async function loadAssets(): Promise<LoadedAssets> {
  const graphiql = await import('@graphql-yoga/render-graphiql/graphiql');
  const sources: Record<string, [string, string]> = {
    'yoga-graphiql.js': [graphiql.js, JAVASCRIPT],
    'graphiql.css': [graphiql.css, 'text/css; charset=utf-8'],
    [WORKER_FILES.editorWorkerService]: [graphiql.editorWorkerService, JAVASCRIPT],
    [WORKER_FILES.json]: [graphiql.jsonWorker, JAVASCRIPT],
    [WORKER_FILES.graphql]: [graphiql.graphqlWorker, JAVASCRIPT],
    'start.js': [START_SCRIPT, JAVASCRIPT],
    'favicon.svg': [FAVICON, 'image/svg+xml'],
  };
  const hash = createHash('sha256');
  const files = new Map<string, Asset>();
  for (const [name, [text, contentType]] of Object.entries(sources)) {
    const body = new TextEncoder().encode(text);
    hash.update(name).update(body);
    files.set(name, { body, contentType });
  }
  return { directory: `${GRAPHIQL_ASSETS_PATH}/${hash.digest('hex').slice(0, 16)}`, files };
}

function pageHtml(directory: string, options: GraphiQLOptions): string {
  // The options sit in a JSON script element: `<` escaped, no text in them can close it.
  const optionsJson = JSON.stringify(options).replaceAll('<', '\\u003c');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}" />
    <title>${escapeHtml(options.title ?? 'GraphiQL')}</title>
    <link rel="icon" type="image/svg+xml" href="${directory}/favicon.svg" />
    <link rel="stylesheet" href="${directory}/graphiql.css" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript.</noscript>
    <div id="root"></div>
    <script id="graphiql-options" type="application/json">${optionsJson}</script>
    <script src="${directory}/yoga-graphiql.js"></script>
    <script src="${directory}/start.js"></script>
  </body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[character]!,
  );
}
