/**
 * With and without a proxy in front (TRUST_PROXY, PUBLIC_BASE_URL): which client IP a rate
 * limit counts, and which origin paging links name. Requests come over a raw socket from
 * 127.0.0.1, so `TRUST_PROXY=loopback` makes the test a trusted proxy, and an app without it
 * sees the test as a client that forges X-Forwarded-* headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRaw, serveApp, type ServedApp } from '../helpers/raw-http.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue();

/** An app served for the file's tests with `env`; closed after them. */
function useServed(env: Record<string, string>): () => ServedApp {
  let served: ServedApp | undefined;
  beforeAll(async () => {
    served = await serveApp(catalogue.database, env);
  });
  afterAll(() => served?.close());
  return () => served!;
}

const PAGE = '/v1/categories?market=se&limit=1&fields=id';

function get(served: ServedApp, headers: [string, string][]) {
  return sendRaw(served.port, { method: 'GET', target: PAGE, headers });
}

/** The statuses of `count` requests, one after another, from the "client" `headers` names. */
async function statuses(served: ServedApp, headers: [string, string][], count: number) {
  const answered: number[] = [];
  for (let i = 0; i < count; i++) answered.push((await get(served, headers)).status);
  return answered;
}

const forwardedFor = (address: string): [string, string][] => [['X-Forwarded-For', address]];

describe('the client IP a rate limit counts', () => {
  // Two requests a minute: the third from the same client is refused.
  const LIMIT = { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2' };

  describe('behind a trusted proxy', () => {
    const served = useServed({ ...LIMIT, TRUST_PROXY: 'loopback' });

    it('is the address the proxy forwards: each client has a bucket of its own', async () => {
      expect(await statuses(served(), forwardedFor('203.0.113.1'), 3)).toEqual([200, 200, 429]);
      expect(await statuses(served(), forwardedFor('203.0.113.2'), 3)).toEqual([200, 200, 429]);
    });

    it('is the nearest untrusted address: a client cannot pose as another', async () => {
      // The proxy appends what it saw (203.0.113.3) to whatever the client claimed.
      const claims = ['198.51.100.1', '198.51.100.2, 10.0.0.1', 'not an address'];
      const answered = [];
      for (const claim of claims) {
        answered.push(...(await statuses(served(), forwardedFor(`${claim}, 203.0.113.3`), 1)));
      }
      expect(answered).toEqual([200, 200, 429]);
    });
  });

  describe('without a trusted proxy', () => {
    const served = useServed(LIMIT);

    it('is the socket’s address: a forged X-Forwarded-For escapes nothing', async () => {
      const answered = [];
      for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        answered.push(...(await statuses(served(), forwardedFor(address), 1)));
      }
      expect(answered).toEqual([200, 200, 429]);
      expect(await statuses(served(), [], 1)).toEqual([429]);
    });
  });

  describe('behind a proxy that is not the trusted one', () => {
    const served = useServed({ ...LIMIT, TRUST_PROXY: '10.0.0.0/8' });

    it('is the socket’s address', async () => {
      const answered = [];
      for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        answered.push(...(await statuses(served(), forwardedFor(address), 1)));
      }
      expect(answered).toEqual([200, 200, 429]);
    });
  });
});

/** The page's links (`self` is not in the generic envelope: `next` stands for them). */
async function nextLink(served: ServedApp, headers: [string, string][]): Promise<string> {
  const response = await get(served, headers);
  expect(response.status, response.text).toBe(200);
  return response.body.meta.paging.next as string;
}

const NEXT_PATH = `${PAGE}&offset=1`;

describe('paging links', () => {
  const hostile: [string, string][] = [
    ['Host', 'evil.example'],
    ['X-Forwarded-Host', 'evil.example'],
    ['X-Forwarded-Proto', 'https'],
  ];

  describe('with PUBLIC_BASE_URL', () => {
    const served = useServed({
      PUBLIC_BASE_URL: 'https://api.example.com/catalogue/',
      TRUST_PROXY: 'loopback',
    });

    it('are built on it, whatever the request’s headers say, even from a trusted proxy', async () => {
      expect(await nextLink(served(), hostile)).toBe(
        `https://api.example.com/catalogue${NEXT_PATH}`,
      );
      expect(await nextLink(served(), [])).toBe(`https://api.example.com/catalogue${NEXT_PATH}`);
    });
  });

  describe('behind a trusted proxy', () => {
    const served = useServed({ TRUST_PROXY: 'loopback' });

    it('name the origin the proxy forwards', async () => {
      const headers: [string, string][] = [
        ['Host', 'gateway.internal:4000'],
        ['X-Forwarded-Host', 'shop.example'],
        ['X-Forwarded-Proto', 'https'],
      ];
      expect(await nextLink(served(), headers)).toBe(`https://shop.example${NEXT_PATH}`);
    });

    it('take the values the nearest proxy wrote: the last ones', async () => {
      const headers: [string, string][] = [
        ['X-Forwarded-Host', 'evil.example, shop.example:8443'],
        ['X-Forwarded-Proto', 'http, HTTPS'],
      ];
      expect(await nextLink(served(), headers)).toBe(`https://shop.example:8443${NEXT_PATH}`);
    });

    it('name the Host the proxy passed on when it forwards none, over http', async () => {
      expect(await nextLink(served(), [['Host', 'shop.example:8080']])).toBe(
        `http://shop.example:8080${NEXT_PATH}`,
      );
    });

    it.each([
      ['X-Forwarded-Host', 'evil.example/phish?'],
      ['X-Forwarded-Host', 'user@evil.example'],
      ['X-Forwarded-Host', 'shop.example:99999'],
      ['X-Forwarded-Proto', 'javascript'],
    ])('fall back to the service’s own address for %s: %s', async (name, value) => {
      const link = await nextLink(served(), [[name, value]]);
      expect(link).toBe(`http://localhost:${served().port}${NEXT_PATH}`);
    });
  });

  describe('without a trusted proxy or PUBLIC_BASE_URL', () => {
    const served = useServed({});

    it('name the service’s own address, never the Host or X-Forwarded-* a client sent', async () => {
      const link = await nextLink(served(), hostile);
      expect(link).toBe(`http://localhost:${served().port}${NEXT_PATH}`);
      expect(link).not.toContain('evil.example');
    });
  });

  describe('without a trusted proxy, listening on a named address', () => {
    const served = useServed({ HOST: '127.0.0.1' });

    it('name that address', async () => {
      const link = await nextLink(served(), hostile);
      expect(link).toBe(`http://127.0.0.1:${served().port}${NEXT_PATH}`);
    });
  });
});

describe('picture URLs behind a trusted proxy', () => {
  const served = useServed({ TRUST_PROXY: 'loopback' });
  const PRODUCT_PAGE = '/products?market=se&limit=1&fields=productId,images';

  /** The first product's picture URL as a client reaching the service under `host` sees it. */
  async function pictureUrl(host: string): Promise<string> {
    const response = await sendRaw(served().port, {
      method: 'GET',
      target: PRODUCT_PAGE,
      headers: [['X-Forwarded-Host', host]],
    });
    expect(response.status, response.text).toBe(200);
    const [product] = response.body.data;
    expect(product.images.large).toBe(product.images.small.replace('/small.svg', '/large.svg'));
    return product.images.small as string;
  }

  it('name each client’s origin: a cached answer under one is not served under another', async () => {
    const first = await pictureUrl('shop.example');
    expect(first).toMatch(/^http:\/\/shop\.example\/images\/products\/\d+\/small\.svg$/);
    // The same document and variables again: the response cache holds the first answer.
    const second = await pictureUrl('other.example:8080');
    expect(second).toBe(first.replace('shop.example', 'other.example:8080'));
    expect(await pictureUrl('shop.example')).toBe(first);
  });
});
