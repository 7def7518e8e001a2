/**
 * The pictures the service draws (drawings.ts), served at the URLs answers give
 * (image-urls.ts): public, counted against the caller's request limit as the REST routes
 * are, one statement per picture. A picture changes only with what it shows (a product's
 * name, brand or category; a shop's name), so it may be kept a day and revalidated by ETag.
 */
import { Response } from '@whatwg-node/fetch';
import type { Kysely } from 'kysely';
import { entityTag, matchesEntityTag } from '../cache/etag.ts';
import { findProductPicture } from '../db/repositories/pictures.ts';
import { findShopsByIds } from '../db/repositories/shops.ts';
import type { Database } from '../db/types.ts';
import type { Exchange, Handler } from '../http/handler.ts';
import { REST_REFUSALS } from '../http/refusals.ts';
import type { Lookup } from '../http/router.ts';
import { bufferedResponse, errorResponse } from '../responses.ts';
import { productPicture, shopLogo } from './drawings.ts';
import { IMAGES_PATH, type ImageSize } from './image-urls.ts';

export const PICTURE_CACHE_CONTROL = 'public, max-age=86400';
export const SVG_CONTENT_TYPE = 'image/svg+xml';

/** The largest id a path may name: ids are Postgres integers. */
const MAX_ID = 2_147_483_647;

interface ImageRoute {
  route: string;
  pattern: RegExp;
  /** The picture's SVG, or undefined for no such product or shop. */
  draw(db: Kysely<Database>, id: number, size: ImageSize): Promise<string | undefined>;
  subject: string;
}

const ROUTES: readonly ImageRoute[] = [
  {
    route: 'images-product',
    pattern: new RegExp(`^${IMAGES_PATH}/products/(?<id>[^/]+)/(?<size>small|large)\\.svg$`),
    subject: 'product',
    draw: async (db, id, size) => {
      const row = await findProductPicture(db, id);
      return (
        row &&
        productPicture(
          { name: row.name, brand: row.brand, categorySlugs: row.category_slugs },
          size,
        )
      );
    },
  },
  {
    route: 'images-shop',
    pattern: new RegExp(`^${IMAGES_PATH}/shops/(?<id>[^/]+)/logo\\.svg$`),
    subject: 'shop',
    draw: async (db, id) => {
      const [shop] = await findShopsByIds(db, [id], ['name']);
      return shop && shopLogo(shop.name);
    },
  },
];

/** The picture routes, found by their path patterns. */
export function imageRoutes(db: Kysely<Database>): Lookup {
  const handlers = ROUTES.map((route) => ({
    pattern: route.pattern,
    handler: {
      route: route.route,
      limit: 'caller',
      methods: ['GET'],
      refusals: REST_REFUSALS,
      answer: (exchange) => answerPicture(exchange, route, db),
    } satisfies Handler,
  }));
  return (pathname) => {
    for (const { pattern, handler } of handlers) {
      const match = pattern.exec(pathname);
      if (match) return { handler, pathParams: { ...match.groups } };
    }
    return undefined;
  };
}

async function answerPicture(
  { request, requestId, pathParams }: Exchange,
  route: ImageRoute,
  db: Kysely<Database>,
): Promise<Response> {
  const raw = pathParams.id!;
  const range = `${route.subject} id must be an integer between 1 and ${MAX_ID}`;
  if (!/^[0-9]+$/.test(raw)) {
    return errorResponse(400, range, requestId, {
      details: [{ parameter: 'id', reason: 'not_an_integer' }],
    });
  }
  const id = Number(raw);
  if (id < 1 || id > MAX_ID) {
    return errorResponse(400, range, requestId, {
      details: [{ parameter: 'id', reason: 'out_of_range' }],
    });
  }
  const svg = await route.draw(db, id, pathParams.size as ImageSize);
  if (svg === undefined) return errorResponse(404, `no ${route.subject} ${id}`, requestId);
  const bytes = Buffer.from(svg);
  const tag = entityTag(bytes);
  const headers = {
    etag: tag,
    'cache-control': PICTURE_CACHE_CONTROL,
    'x-content-type-options': 'nosniff',
    // Opened on its own, a picture runs nothing, whatever a name holds.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  };
  if (matchesEntityTag(request.headers.get('if-none-match'), tag)) {
    return new Response(null, { status: 304, headers });
  }
  return bufferedResponse(200, bytes, { 'content-type': SVG_CONTENT_TYPE, ...headers });
}
