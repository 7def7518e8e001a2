/**
 * What the service believes about where a request came from: the client IP the rate limiter
 * counts, and the base URL the links in its answer are built on. Headers any caller can write
 * (Host, X-Forwarded-*) are believed only from a socket whose address TRUST_PROXY lists, so a
 * forged X-Forwarded-For escapes no rate limit, and no caller can plant its own host in links
 * that shared caches then serve to everyone.
 */
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { Config } from './config.ts';

export interface RequestSource {
  /** The address a rate limit counts; undefined without a socket (`app.fetch` in tests). */
  clientIp: string | undefined;
  /** Scheme, host and path prefix for links, without a trailing slash. */
  publicBase: string;
}

type ProxyTrustConfig = Pick<Config, 'host' | 'port' | 'publicBaseUrl' | 'trustProxy'>;

/** `sourceOf(req)` for each request; the trust list is compiled once, here. */
export function createProxyTrust(config: ProxyTrustConfig) {
  const trust = proxyaddr.compile(config.trustProxy);
  return function sourceOf(req: IncomingMessage | undefined): RequestSource {
    if (!req) return { clientIp: undefined, publicBase: config.publicBaseUrl ?? ownBase(config) };
    const viaTrustedProxy = trust(req.socket.remoteAddress ?? '', 0);
    return {
      clientIp: proxyaddr(req, trust),
      publicBase:
        config.publicBaseUrl ??
        (viaTrustedProxy ? forwardedBase(req) : undefined) ??
        ownBase(config, req.socket.localPort),
    };
  };
}

/** The wildcard addresses HOST may name: no client reaches the service under them. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);

/**
 * The service's own address, when neither PUBLIC_BASE_URL nor a trusted proxy says more: the
 * HOST it listens on (localhost for a wildcard) and the port the request arrived on. Right
 * for a developer's machine and for Docker Compose; a deployment sets PUBLIC_BASE_URL.
 */
function ownBase(config: ProxyTrustConfig, localPort?: number): string {
  const host = WILDCARD_HOSTS.has(config.host) ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${localPort ?? config.port}`;
}

/** A host with an optional port: a DNS name, an IPv4 address or a bracketed IPv6 one. */
const HOST_WITH_PORT =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The origin a trusted proxy says its client used. The last X-Forwarded-Proto and
 * X-Forwarded-Host values are the ones the nearest proxy (the trusted one) wrote, earlier
 * ones came from further away; without X-Forwarded-Host, the Host the proxy passed on.
 * Anything that is not a plain host yields nothing, never a link to somewhere odd.
 */
function forwardedBase(req: IncomingMessage): string | undefined {
  const proto = lastValue(req.headers['x-forwarded-proto'])?.toLowerCase() ?? 'http';
  const host = lastValue(req.headers['x-forwarded-host']) ?? req.headers.host;
  if ((proto !== 'http' && proto !== 'https') || !host || !HOST_WITH_PORT.test(host)) {
    return undefined;
  }
  try {
    return new URL(`${proto}://${host}`).origin;
  } catch {
    return undefined; // a port beyond 65535, or an IPv6 literal that is not one
  }
}

/** The last of a header's comma-separated values (repeated headers count as one list). */
function lastValue(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const values = (Array.isArray(header) ? header.join(',') : header).split(',');
  const last = values[values.length - 1]!.trim();
  return last === '' ? undefined : last;
}
