/**
 * The feed routes (docs/api.md, "Feeds over HTTP"): a shop's full feed (`PUT
 * /feeds/shops/{shopId}`), pushed items (`POST …/items`), a withdrawn item (`DELETE
 * …/items/{itemId}`), and its runs (`GET /feeds/runs/{runId}`, `GET …/runs`). Each write
 * makes a run, stored and queued before the answer (`202` with its `Location`), applied by
 * the shop's worker (src/feeds/run-worker.ts). Only the shop's own client may call them.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { requireShop } from '../../auth/caller.ts';
import {
  appendFeedRunBody,
  createFeedRun,
  discardFeedRun,
  findFeedRun,
  findShopFeedRuns,
  queueFeedRun,
  type NewFeedRun,
} from '../../db/repositories/feed-runs.ts';
import { findShopMarket } from '../../db/repositories/shops.ts';
import type { Database } from '../../db/types.ts';
import type { Exchange, Handler } from '../../http/handler.ts';
import { REST_REFUSALS } from '../../http/refusals.ts';
import type { Lookup } from '../../http/router.ts';
import { errorResponse, jsonResponse } from '../../responses.ts';
import type { FeedRunReport } from '../feed-run.ts';
import { formatOfContentType } from '../formats/dispatch.ts';
import { MAX_PUSH_ITEMS, pushRecords, PushShapeError } from '../formats/json-items.ts';
import type { RunQueue } from '../run-queue.ts';
import { BodyRefused, readBody, receiveBody, type BodyBounds } from './receive-body.ts';
import { isFinished, reportOfRow, runLocation, type RunWaiters } from './run-report.ts';

/** A push of MAX_PUSH_ITEMS items of a few kilobytes each fits well within this. */
const MAX_PUSH_BYTES = 8 * 1024 * 1024;
const RUNS_PAGE_DEFAULT = 20;
const RUNS_PAGE_MAX = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface FeedRouteDependencies {
  db: Kysely<Database>;
  queue: RunQueue;
  waiters: RunWaiters;
  bounds: BodyBounds;
  waitMs: number;
}

interface FeedRoute {
  route: string;
  pattern: RegExp;
  methods: readonly string[];
  ownDeadline?: true;
  answer(exchange: Exchange, deps: FeedRouteDependencies): Promise<Response>;
}

const ROUTES: FeedRoute[] = [
  {
    route: 'feeds-full',
    pattern: /^\/feeds\/shops\/(?<shopId>[^/]+)$/,
    methods: ['PUT'],
    ownDeadline: true,
    answer: receiveFullFeed,
  },
  {
    route: 'feeds-push',
    pattern: /^\/feeds\/shops\/(?<shopId>[^/]+)\/items$/,
    methods: ['POST'],
    ownDeadline: true,
    answer: receivePush,
  },
  {
    route: 'feeds-withdraw',
    pattern: /^\/feeds\/shops\/(?<shopId>[^/]+)\/items\/(?<itemId>[^/]+)$/,
    methods: ['DELETE'],
    ownDeadline: true,
    answer: receiveWithdrawal,
  },
  {
    route: 'feeds-runs',
    pattern: /^\/feeds\/shops\/(?<shopId>[^/]+)\/runs$/,
    methods: ['GET'],
    answer: listRuns,
  },
  {
    route: 'feeds-run',
    pattern: /^\/feeds\/runs\/(?<runId>[^/]+)$/,
    methods: ['GET'],
    ownDeadline: true,
    answer: showRun,
  },
];

/** The feed routes, found by their path patterns. */
export function feedRoutes(deps: FeedRouteDependencies): Lookup {
  const handlers = ROUTES.map((route) => ({
    pattern: route.pattern,
    handler: {
      route: route.route,
      limit: 'caller',
      methods: route.methods,
      refusals: REST_REFUSALS,
      ...(route.ownDeadline ? { ownDeadline: true } : {}),
      answer: (exchange) => route.answer(exchange, deps),
    } satisfies Handler,
  }));
  return (pathname) => {
    for (const { pattern, handler } of handlers) {
      const match = pattern.exec(pathname);
      if (match) return { handler, pathParams: decodedParams(match.groups ?? {}) };
    }
    return undefined;
  };
}

function decodedParams(groups: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(groups)) {
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      params[name] = value;
    }
  }
  return params;
}

/** The shop's own client, and a shop that exists: the shop's id, or the refusal. */
async function ownShop(
  { caller, pathParams, requestId }: Exchange,
  db: Kysely<Database>,
): Promise<{ shopId: number; refused?: never } | { shopId?: never; refused: Response }> {
  const refused = requireShop(caller, pathParams.shopId, requestId);
  if (refused) return { refused };
  const shopId = Number(pathParams.shopId);
  if ((await findShopMarket(db, shopId)) === undefined) {
    return { refused: errorResponse(404, `shop ${shopId} does not exist`, requestId) };
  }
  return { shopId };
}

async function receiveFullFeed(exchange: Exchange, deps: FeedRouteDependencies) {
  const { request, requestId } = exchange;
  const { shopId, refused } = await ownShop(exchange, deps.db);
  if (refused) return refused;
  const format = formatOfContentType(request.headers.get('content-type') ?? '');
  if (format === null) {
    return errorResponse(
      415,
      'a feed is text/tab-separated-values, text/csv, application/xml or application/rss+xml',
      requestId,
    );
  }
  const encoding = (request.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip') {
    return errorResponse(415, `Content-Encoding ${encoding} is not read: gzip or none`, requestId);
  }
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > deps.bounds.maxBytes) return tooLarge(deps.bounds.maxBytes, requestId);
  const runId = randomUUID();
  await createFeedRun(deps.db, {
    runId,
    shopId,
    kind: 'full',
    format,
    gzip: encoding === 'gzip',
    receivedAt: new Date(),
    state: 'receiving',
  });
  try {
    await receiveBody(deps.db, runId, request.body, deps.bounds);
  } catch (error) {
    await discardFeedRun(deps.db, runId);
    if (error instanceof BodyRefused) return errorResponse(error.status, error.message, requestId);
    throw error;
  }
  await queueFeedRun(deps.db, runId);
  return queued(exchange, deps, shopId, runId);
}

async function receivePush(exchange: Exchange, deps: FeedRouteDependencies) {
  const { request, requestId } = exchange;
  const { shopId, refused } = await ownShop(exchange, deps.db);
  if (refused) return refused;
  const mediaType = (request.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (mediaType.toLowerCase() !== 'application/json') {
    return errorResponse(415, 'pushed items are application/json', requestId);
  }
  let bytes: Buffer;
  try {
    bytes = await readBody(request.body, { ...deps.bounds, maxBytes: MAX_PUSH_BYTES });
  } catch (error) {
    if (error instanceof BodyRefused) return errorResponse(error.status, error.message, requestId);
    throw error;
  }
  try {
    const records = pushRecords(JSON.parse(bytes.toString('utf8')), new Set());
    if (records.length === 0) throw new PushShapeError('body', 'holds no items');
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof PushShapeError) {
      return errorResponse(
        400,
        `not a push of up to ${MAX_PUSH_ITEMS} items: ${error.message}`,
        requestId,
      );
    }
    throw error;
  }
  const runId = await createPushRun(deps.db, shopId, { state: 'receiving' });
  await appendFeedRunBody(deps.db, runId, 0, bytes);
  await queueFeedRun(deps.db, runId);
  return queued(exchange, deps, shopId, runId);
}

async function receiveWithdrawal(exchange: Exchange, deps: FeedRouteDependencies) {
  const { shopId, refused } = await ownShop(exchange, deps.db);
  if (refused) return refused;
  const itemId = exchange.pathParams.itemId!;
  if (itemId.length < 1 || itemId.length > 50) {
    return errorResponse(400, 'an item id is 1 to 50 characters', exchange.requestId);
  }
  const runId = await createPushRun(deps.db, shopId, {
    state: 'queued',
    withdrawItemIds: [itemId],
  });
  return queued(exchange, deps, shopId, runId);
}

/** A push's run (items as JSON, or a withdrawal alone); returns its id. */
async function createPushRun(
  db: Kysely<Database>,
  shopId: number,
  run: Pick<NewFeedRun, 'state' | 'withdrawItemIds'>,
): Promise<string> {
  const runId = randomUUID();
  await createFeedRun(db, {
    runId,
    shopId,
    kind: 'push',
    format: 'json',
    gzip: false,
    receivedAt: new Date(),
    ...run,
  });
  return runId;
}

/** The run's answer once queued: `202` at once, or with `?wait=true` once it is finished. */
async function queued(
  exchange: Exchange,
  deps: FeedRouteDependencies,
  shopId: number,
  runId: string,
): Promise<Response> {
  await deps.queue.enqueue(shopId);
  return answerRun(exchange, deps, runId, 'write');
}

async function showRun(exchange: Exchange, deps: FeedRouteDependencies) {
  const { caller, requestId, pathParams } = exchange;
  // Any shop's client may ask; whose run it is is checked once it is found.
  const shopClient = caller.kind === 'client' && caller.shopId !== undefined;
  const refused = shopClient ? null : requireShop(caller, undefined, requestId);
  if (refused) return refused;
  const runId = pathParams.runId!;
  const row = UUID.test(runId) ? await findFeedRun(deps.db, runId) : undefined;
  if (row === undefined) return errorResponse(404, `no run ${runId}`, requestId);
  const ownRefusal = requireShop(caller, String(row.shop_id), requestId);
  if (ownRefusal) return ownRefusal;
  return answerRun(exchange, deps, runId, 'read');
}

async function answerRun(
  { url, requestId }: Exchange,
  deps: FeedRouteDependencies,
  runId: string,
  asked: 'write' | 'read',
): Promise<Response> {
  const wait = url.searchParams.get('wait') === 'true';
  const report = wait
    ? await deps.waiters.wait(deps.db, runId, deps.waitMs)
    : reportOfRow((await findFeedRun(deps.db, runId))!);
  if (report === undefined) return errorResponse(404, `no run ${runId}`, requestId);
  const headers = { location: runLocation(runId), 'cache-control': 'no-store' };
  return jsonResponse(statusOf(report, wait, asked), report, headers);
}

/**
 * A write without `wait`, or a wait not over in time: 202. A read without `wait`: 200. A
 * wait's finished run: applied 200, rejected 422, failed 503 (the service's fault: the shop
 * may send it again).
 */
function statusOf(report: FeedRunReport, wait: boolean, asked: 'write' | 'read'): number {
  if (!wait) return asked === 'write' ? 202 : 200;
  if (!isFinished(report)) return 202;
  if (report.state === 'applied') return 200;
  if (report.state === 'rejected') return 422;
  return 503;
}

async function listRuns(exchange: Exchange, deps: FeedRouteDependencies) {
  const { url, requestId } = exchange;
  const { shopId, refused } = await ownShop(exchange, deps.db);
  if (refused) return refused;
  const limitParam = url.searchParams.get('limit');
  const limit = limitParam === null ? RUNS_PAGE_DEFAULT : Number(limitParam);
  if (!Number.isInteger(limit) || limit < 1 || limit > RUNS_PAGE_MAX) {
    return errorResponse(400, `limit is a whole number from 1 to ${RUNS_PAGE_MAX}`, requestId, {
      details: [{ parameter: 'limit', reason: 'out_of_range' }],
    });
  }
  const beforeId = url.searchParams.get('before');
  let before;
  if (beforeId !== null) {
    const row = UUID.test(beforeId) ? await findFeedRun(deps.db, beforeId) : undefined;
    if (row === undefined || row.shop_id !== shopId) {
      return errorResponse(400, `before names no run of shop ${shopId}`, requestId, {
        details: [{ parameter: 'before', reason: 'unknown_run' }],
      });
    }
    before = { receivedAt: row.received_at, runId: row.run_id };
  }
  const rows = await findShopFeedRuns(deps.db, shopId, {
    limit: limit + 1,
    ...(before ? { before } : {}),
  });
  const runs = rows.slice(0, limit).map(reportOfRow);
  const next =
    rows.length > limit ? `${url.pathname}?limit=${limit}&before=${runs.at(-1)!.runId}` : null;
  return jsonResponse(200, { runs, links: { next } }, { 'cache-control': 'no-store' });
}

function tooLarge(maxBytes: number, requestId: string): Response {
  return errorResponse(
    413,
    `the body is larger than ${maxBytes} bytes: nothing applied`,
    requestId,
  );
}
