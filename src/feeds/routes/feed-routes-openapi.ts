/**
 * The feed routes (feed-routes.ts) in the OpenAPI document: their operations, the run they all
 * answer with, and a pushed item.
 */
import {
  DEFECT,
  errorAnswer,
  headersOf,
  JSON_MEDIA_TYPE,
  REQUIRED_BEARER,
  schemaRef,
  UNAVAILABLE,
  type JsonSchema,
  type OpenApiAnswer,
  type OpenApiParameter,
  type OpenApiPaths,
} from '../../openapi/vocabulary.ts';
import { FEED_AVAILABILITIES, FEED_CONDITIONS } from '../feed-item.ts';
import { FEED_COLUMNS } from '../feed-record.ts';
import { MAX_PUSH_ITEMS } from '../formats/json-items.ts';

const RUN_SCHEMA = 'FeedRun';
const RUN_PAGE_SCHEMA = 'FeedRunPage';
const PUSHED_ITEM_SCHEMA = 'FeedItem';

const RUN_EXAMPLE = {
  runId: '0b6f3c1e-8f55-4d0e-9a43-2f7a4d8e9c10',
  shopId: 12,
  kind: 'full',
  format: 'tsv',
  state: 'applied',
  receivedAt: '2026-11-27T08:00:00.000Z',
  startedAt: '2026-11-27T08:00:01.120Z',
  finishedAt: '2026-11-27T08:00:02.480Z',
  reason: null,
  counts: {
    rows: 512,
    created: 3,
    updated: 25,
    unchanged: 474,
    withdrawn: 5,
    rejected: 3,
    unmatched: 2,
  },
  rejectedRows: [
    { line: 515, itemId: 'A-17', field: 'price', reason: '"12,00 SEK" is not an amount' },
  ],
  ignoredColumns: ['custom_label_0'],
};

const count = (description: string) => ({ type: 'integer', minimum: 0, description });

const RUN_ID = {
  type: 'string',
  pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
  description: 'A UUID.',
};

export const FEED_ROUTE_SCHEMAS: Record<string, JsonSchema> = {
  [RUN_SCHEMA]: {
    type: 'object',
    description:
      'A run: one full feed or one push, its state and, once finished, its report (docs/api.md, "Feeds").',
    required: [
      'runId',
      'shopId',
      'kind',
      'format',
      'state',
      'receivedAt',
      'startedAt',
      'finishedAt',
      'reason',
      'counts',
      'rejectedRows',
      'ignoredColumns',
    ],
    properties: {
      runId: RUN_ID,
      shopId: { type: 'integer' },
      kind: { type: 'string', enum: ['full', 'push'] },
      format: { type: 'string', enum: ['tsv', 'csv', 'xml', 'json'] },
      state: { type: 'string', enum: ['queued', 'running', 'applied', 'rejected', 'failed'] },
      receivedAt: { type: 'string', description: 'ISO 8601, UTC: when its upload began.' },
      startedAt: { type: ['string', 'null'], description: 'ISO 8601: its last start.' },
      finishedAt: { type: ['string', 'null'], description: 'ISO 8601.' },
      reason: {
        type: ['string', 'null'],
        description: 'Why the run was rejected whole or failed; null otherwise.',
      },
      counts: {
        type: 'object',
        description: 'Zero until the run is finished; a rejected run changes nothing.',
        required: ['rows', 'created', 'updated', 'unchanged', 'withdrawn', 'rejected', 'unmatched'],
        properties: {
          rows: count('Rows (items) read, rejected ones included.'),
          created: count('Offers new to the shop.'),
          updated: count('Offers changed (an item now out of stock too).'),
          unchanged: count('Offers as they were.'),
          withdrawn: count('Offers no longer served: missing from a full feed, or withdrawn.'),
          rejected: count('Rows rejected, each with its reason (the first 1,000 listed).'),
          unmatched: count('Rows no product matched: kept, not served.'),
        },
      },
      rejectedRows: {
        type: 'array',
        maxItems: 1000,
        items: {
          type: 'object',
          required: ['line', 'itemId', 'field', 'reason'],
          properties: {
            line: {
              type: 'integer',
              description:
                'TSV/CSV: the line, the header being 1; XML and JSON: the item’s position, from 1.',
            },
            itemId: { type: ['string', 'null'] },
            field: { type: 'string' },
            reason: { type: 'string' },
          },
        },
      },
      ignoredColumns: { type: 'array', items: { type: 'string' } },
    },
    examples: [RUN_EXAMPLE],
  },
  [RUN_PAGE_SCHEMA]: {
    type: 'object',
    required: ['runs', 'links'],
    properties: {
      runs: { type: 'array', items: schemaRef(RUN_SCHEMA) },
      links: {
        type: 'object',
        required: ['next'],
        properties: {
          next: {
            type: ['string', 'null'],
            description: 'The next (older) page, or null on the last.',
          },
        },
      },
    },
  },
  [PUSHED_ITEM_SCHEMA]: {
    type: 'object',
    description:
      'An item as a feed row states it, every value a string in the feed’s own notation (`"1299.00 SEK"`); names other than these are ignored and listed in the run.',
    required: ['id'],
    properties: {
      ...Object.fromEntries(FEED_COLUMNS.map((name) => [name, { type: ['string', 'null'] }])),
      availability: { type: 'string', enum: [...FEED_AVAILABILITIES] },
      condition: { type: 'string', enum: [...FEED_CONDITIONS] },
    },
    examples: [
      {
        id: 'A-17',
        title: 'Fairphone 4 256GB',
        link: 'https://shop.example/p/A-17',
        price: '4499.00 SEK',
        availability: 'in_stock',
        gtin: '5408316768198',
      },
    ],
  },
};

const SHOP_ID: OpenApiParameter = {
  name: 'shopId',
  in: 'path',
  required: true,
  description: 'The shop: the one the token’s client is bound to.',
  schema: { type: 'integer' },
};

const WAIT: OpenApiParameter = {
  name: 'wait',
  in: 'query',
  description:
    '`true`: answer once the run is finished (200 applied, 422 rejected whole, 503 failed), within `FEED_WAIT_SECONDS`; past that, 202 with the run as it stands.',
  schema: { type: 'string', enum: ['true', 'false'] },
};

const runAnswer = (description: string): OpenApiAnswer => ({
  description,
  headers: {
    ...headersOf(['X-Request-Id', 'Cache-Control']),
    Location: { description: 'The run: `/feeds/runs/{runId}`.', schema: { type: 'string' } },
  },
  content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(RUN_SCHEMA), example: RUN_EXAMPLE } },
});

/** What every feed route answers besides its run. */
const REFUSALS: Record<string, OpenApiAnswer> = {
  '400': errorAnswer('A malformed request (a push that is not an array of items, say).', []),
  '401': errorAnswer('No token, or one refused.', ['WWW-Authenticate']),
  '403': errorAnswer('The token is not the client of this shop (a partner’s, another shop’s).', []),
  '404': errorAnswer('No such shop, or run.', []),
  '429': errorAnswer('The client’s request rate limit.', ['Retry-After']),
  '500': errorAnswer(DEFECT, []),
  '503': errorAnswer(UNAVAILABLE, ['Retry-After']),
};

/** A write's answers: the queued run, or the finished one with `wait`. */
const WRITE_ANSWERS: Record<string, OpenApiAnswer> = {
  '200': runAnswer('With `wait=true`: the run, applied.'),
  '202': runAnswer('The run, queued (or, with `wait=true`, not finished in time).'),
  ...REFUSALS,
  '422': runAnswer(
    'With `wait=true`: the run, rejected whole (`reason` says why); nothing changed.',
  ),
  '503': runAnswer(
    'With `wait=true`: the run failed (`reason` says why; nothing changed): send it again. Or, with the error body, the database cannot serve.',
  ),
};

export const FEED_ROUTES_OPENAPI: OpenApiPaths = {
  '/feeds/shops/{shopId}': {
    put: {
      operationId: 'putFullFeed',
      tags: ['Feeds'],
      summary: 'Send a full feed: the shop’s offers are then exactly its rows',
      description:
        'The whole feed as the body, as exported for Google Merchant Center: TSV or CSV with a header row, or RSS 2.0 XML with the `g:` namespace; `Content-Encoding: gzip` for any of them. Offers missing from it are withdrawn. Stored as it arrives, then applied in one transaction; runs of one shop apply in the order received. A feed broken as a whole, or with more than `FEED_MAX_REJECTED_SHARE` of its rows rejected, changes nothing.',
      security: REQUIRED_BEARER,
      parameters: [SHOP_ID, WAIT],
      requestBody: {
        required: true,
        content: Object.fromEntries(
          ['text/tab-separated-values', 'text/csv', 'application/xml', 'application/rss+xml'].map(
            (type) => [type, { schema: { type: 'string' } }],
          ),
        ),
      },
      responses: {
        ...WRITE_ANSWERS,
        '408': errorAnswer('The body stopped arriving for `FEED_STALL_SECONDS`: no run.', []),
        '413': errorAnswer('The body is larger than `FEED_MAX_BYTES`: no run.', []),
        '415': errorAnswer('A content type or encoding that is not read.', []),
      },
    },
  },
  '/feeds/shops/{shopId}/items': {
    post: {
      operationId: 'pushFeedItems',
      tags: ['Feeds'],
      summary: 'Push items: create or update these offers only',
      description: `A JSON array of 1 to ${MAX_PUSH_ITEMS} items named like the feed's columns. Each is checked like a feed row; a rejected one is reported and the rest applied.`,
      security: REQUIRED_BEARER,
      parameters: [SHOP_ID, WAIT],
      requestBody: {
        required: true,
        content: {
          [JSON_MEDIA_TYPE]: {
            schema: {
              type: 'array',
              minItems: 1,
              maxItems: MAX_PUSH_ITEMS,
              items: schemaRef(PUSHED_ITEM_SCHEMA),
            },
          },
        },
      },
      responses: {
        ...WRITE_ANSWERS,
        '413': errorAnswer('The body is too large.', []),
        '415': errorAnswer('The body is not application/json.', []),
      },
    },
  },
  '/feeds/shops/{shopId}/items/{itemId}': {
    delete: {
      operationId: 'withdrawFeedItem',
      tags: ['Feeds'],
      summary: 'Withdraw one item: its offer is no longer served',
      security: REQUIRED_BEARER,
      parameters: [
        SHOP_ID,
        {
          name: 'itemId',
          in: 'path',
          required: true,
          description: 'The shop’s item id (1–50 characters).',
          schema: { type: 'string', minLength: 1, maxLength: 50 },
        },
        WAIT,
      ],
      responses: WRITE_ANSWERS,
    },
  },
  '/feeds/shops/{shopId}/runs': {
    get: {
      operationId: 'listFeedRuns',
      tags: ['Feeds'],
      summary: 'The shop’s runs, newest first',
      security: REQUIRED_BEARER,
      parameters: [
        SHOP_ID,
        {
          name: 'limit',
          in: 'query',
          description: 'Runs per page (default 20).',
          schema: { type: 'integer', minimum: 1, maximum: 100 },
        },
        {
          name: 'before',
          in: 'query',
          description: 'A run id: the runs received before it (the `next` link says it).',
          schema: RUN_ID,
        },
      ],
      responses: {
        '200': {
          description: 'A page of runs.',
          headers: headersOf(['X-Request-Id', 'Cache-Control']),
          content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(RUN_PAGE_SCHEMA) } },
        },
        ...REFUSALS,
      },
    },
  },
  '/feeds/runs/{runId}': {
    get: {
      operationId: 'getFeedRun',
      tags: ['Feeds'],
      summary: 'A run, by the `Location` its write answered',
      security: REQUIRED_BEARER,
      parameters: [
        {
          name: 'runId',
          in: 'path',
          required: true,
          description: 'The run.',
          schema: RUN_ID,
        },
        WAIT,
      ],
      responses: {
        '200': runAnswer('The run as it stands; with `wait=true`, applied.'),
        '202': runAnswer('With `wait=true`: the run, not finished in time.'),
        ...REFUSALS,
        '422': runAnswer('With `wait=true`: the run, rejected whole.'),
        '503': runAnswer('With `wait=true`: the run, failed. Or the database cannot serve.'),
      },
    },
  },
};
