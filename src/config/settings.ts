/**
 * Every setting the service reads, each declared once: its variable, what it means (a line of
 * `--help`, and README's table with `details`), the commands it matters to, and its parser
 * (what it accepts, its default). The `Config` type, the loader (src/config.ts), `--help` and
 * README's table (readme-table.ts) all come from here; problems are reported in this order.
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { MarketCode } from '../markets.ts';
import {
  baseOnly,
  boolean,
  fraction,
  hasProtocol,
  integer,
  isTrustedProxy,
  list,
  oneOf,
  perMarket,
  productionMode,
  redactUrl,
  secrets,
  text,
  url,
  withoutTrailingSlash,
  type Parser,
} from './parsers.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `auto`: pino-pretty's readable lines when stdout is a terminal, JSON lines otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const SEED_SCALES = ['sample', 'bench', 'large'] as const;
export type SeedScale = (typeof SEED_SCALES)[number];

/** Used only when TOKEN_SECRET is unset outside production, so a fresh clone starts as is. */
export const DEVELOPMENT_TOKEN_SECRET = 'development-only-token-secret-change-me-0000';

/**
 * Token secrets anyone can read in this repository, by where they are published: fine on a
 * developer's machine, refused in production, where they would let anyone sign tokens.
 */
const PUBLISHED_TOKEN_SECRETS = new Map([
  [DEVELOPMENT_TOKEN_SECRET, 'the development-only default'],
  ['compose-placeholder-token-secret-CHANGE-ME', 'the placeholder from docker-compose.yml'],
]);

export type ConfiguredCommand =
  'serve' | 'migrate' | 'seed' | 'clients' | 'feed' | 'documents' | 'cache';

export interface EnvironmentVariable {
  names: readonly string[];
  /** One line for `--help`, and the start of README's text. */
  meaning: string;
}

export interface Setting<T> extends EnvironmentVariable {
  /** The commands it matters to (every command validates them all). */
  commands: readonly ConfiguredCommand[];
  /** README's text after the meaning, in Markdown. */
  details?: string;
  parse: Parser<T>;
}

const SERVE = ['serve'] as const;
/** The commands that open the database (`cache` only a server's, to tell the processes). */
const DATABASE_COMMANDS = ['serve', 'migrate', 'seed', 'clients', 'feed', 'documents'] as const;
const EVERY_COMMAND = [...DATABASE_COMMANDS, 'cache'] as const;
/** Those that reach the Redis the processes share: serving, and the operators' commands on it. */
const REDIS_COMMANDS = ['serve', 'clients', 'cache'] as const;
const HTTP = ['http:', 'https:'];
const POSTGRES = ['postgres:', 'postgresql:'];

function siteUrlVariable(market: MarketCode): string {
  return `SITE_URL_${market.toUpperCase()}`;
}

/** A directory, made absolute; PGlite's in-memory `memory://` passes through as it is. */
function embeddedDataDir(value: string): string {
  return value.startsWith('memory://') ? value : path.resolve(value);
}

export const SETTINGS = {
  // First: the settings after it read it (Source.production).
  production: {
    names: ['NODE_ENV'],
    commands: EVERY_COMMAND,
    meaning:
      'production: TOKEN_SECRET required, no seeding unless SEED_ON_EMPTY=true, no demo client unless SEED_DEMO_CLIENT=true',
    parse: productionMode(),
  },
  publicBaseUrl: {
    names: ['PUBLIC_BASE_URL'],
    commands: SERVE,
    meaning: 'URL clients reach the service under, for the links in answers',
    details:
      'optionally with a path prefix (`https://api.example.com/catalogue`); unset: the origin a ' +
      'trusted proxy forwards, else `http://` `HOST` (`localhost` for `0.0.0.0`) and the port ' +
      '([docs/api.md](docs/api.md#paging))',
    parse: url({ protocols: HTTP, normalise: baseOnly }),
  },
  siteUrls: {
    ...perMarket(siteUrlVariable, url({ protocols: HTTP, normalise: withoutTrailingSlash })),
    commands: SERVE,
    meaning: "a market's site base URL for product and category links, overriding the stored one",
  },
  tokenSecrets: {
    names: ['TOKEN_SECRET'],
    commands: SERVE,
    meaning:
      'keys of access tokens, comma-separated: the first signs, each verifies (required with NODE_ENV=production)',
    details:
      'rotated in two steps, `NEW,OLD` then `NEW` ([docs/operations.md](docs/operations.md#rotating-token_secret)); ' +
      'production refuses the ones published in the code and docker-compose.yml',
    parse: secrets({
      minLength: 32,
      development: DEVELOPMENT_TOKEN_SECRET,
      published: PUBLISHED_TOKEN_SECRETS,
    }),
  },
  tokenTtlSeconds: {
    names: ['TOKEN_TTL_SECONDS'],
    commands: SERVE,
    meaning: 'lifetime of an access token',
    parse: integer({ min: 60, max: 86_400, default: 3600 }),
  },
  tokenClientsRefreshSeconds: {
    names: ['TOKEN_CLIENTS_REFRESH_SECONDS'],
    commands: SERVE,
    meaning: 'how often each process reads the list of API clients again, on a server',
    details:
      "a revoked client's tokens are refused as soon as `npm run clients` tells the processes, " +
      'or within this when a process missed that or a client was deleted some other way ' +
      '([docs/operations.md](docs/operations.md#api-clients))',
    parse: integer({ min: 1, max: 3600, default: 30 }),
  },
  port: {
    names: ['PORT'],
    commands: SERVE,
    meaning: 'port to listen on (0 picks a free one)',
    parse: integer({ min: 0, max: 65_535, default: 4000 }),
  },
  host: {
    names: ['HOST'],
    commands: SERVE,
    meaning: 'interface to listen on',
    parse: text({ accepts: 'an address or host name', default: '0.0.0.0' }),
  },
  workers: {
    names: ['WORKERS'],
    commands: SERVE,
    meaning: 'processes serving the port (auto: one per core; above 1 needs DATABASE_URL)',
    details:
      "forked by Node's cluster module, a worker that dies is restarted; the embedded " +
      'database is one process\'s own (docs/operations.md, "Running several processes")',
    // More processes than this on one host is a typo, not a deployment.
    parse: integer({ min: 1, max: 256, default: 1, auto: availableParallelism }),
  },
  trustProxy: {
    names: ['TRUST_PROXY'],
    commands: SERVE,
    meaning: 'proxies whose X-Forwarded-* headers are believed (addresses, CIDRs, presets)',
    details:
      '`X-Forwarded-For` gives the client IP rate limits count, and `X-Forwarded-Host`/`-Proto` ' +
      "the links' origin when `PUBLIC_BASE_URL` is unset",
    parse: list({
      entry: isTrustedProxy,
      expected: 'IP addresses, CIDR ranges or one of loopback, linklocal, uniquelocal',
    }),
  },
  databaseUrl: {
    names: ['DATABASE_URL'],
    commands: EVERY_COMMAND,
    meaning: 'URL of a PostgreSQL server; unset: the embedded database',
    parse: url({ protocols: POSTGRES }),
  },
  embeddedDataDir: {
    names: ['EMBEDDED_DATA_DIR'],
    commands: DATABASE_COMMANDS,
    meaning: "directory of the embedded database's files (created when missing)",
    details:
      'relative to the working directory, missing parents included; one process at a time ' +
      'holds it (a lock directory `<dir>.lock` beside it, taken over 30 s after a crash); ' +
      'ignored with `DATABASE_URL`',
    parse: text({ accepts: 'a directory', default: 'data/pglite', normalise: embeddedDataDir }),
  },
  databasePoolSize: {
    names: ['DATABASE_POOL_SIZE'],
    commands: DATABASE_COMMANDS,
    meaning: 'connections to the PostgreSQL server',
    details:
      'per process, and as many again to each replica; a start warns when all the processes ' +
      "could open more than a server's `max_connections` (docs/operations.md, " +
      '"Database connections")',
    parse: integer({ min: 1, max: 200, default: 10 }),
  },
  databaseReplicaUrls: {
    names: ['DATABASE_REPLICA_URLS'],
    commands: SERVE,
    meaning: 'streaming replicas of DATABASE_URL that serve reads (comma-separated URLs)',
    details:
      'requests read from one in service, in turn; migrations, seeding, token requests and ' +
      'transactions use the primary (docs/operations.md, "Read replicas")',
    parse: list({
      entry: hasProtocol(POSTGRES),
      expected: 'postgres: or postgresql: URLs',
      shown: redactUrl,
    }),
  },
  replicaMaxLagMs: {
    names: ['REPLICA_MAX_LAG_MS'],
    commands: SERVE,
    meaning: 'a replica further behind the primary than this serves no reads until it catches up',
    parse: integer({ min: 1, max: 3_600_000, default: 5_000 }),
  },
  replicaCheckIntervalMs: {
    names: ['REPLICA_CHECK_INTERVAL_MS'],
    commands: SERVE,
    meaning: "how often each replica's reachability and lag are checked",
    details: 'a failed connection also takes it out at once',
    parse: integer({ min: 10, max: 60_000, default: 1_000 }),
  },
  catalogueClock: {
    names: ['CATALOGUE_CLOCK'],
    commands: SERVE,
    meaning:
      'bring the catalogue forward at start and every UTC midnight: ended sales, price history, trends (false: a feed keeps it current)',
    details: 'in the background ([docs/api.md](docs/api.md#clock))',
    parse: boolean({ default: true }),
  },
  seedOnEmpty: {
    names: ['SEED_ON_EMPTY'],
    commands: SERVE,
    meaning: 'fill an empty catalogue at start (in production only when set to true)',
    details: 'with the sample catalogue (its demo partner client as `SEED_DEMO_CLIENT` says)',
    // Production gets the sample catalogue (and its published demo client) only when asked.
    parse: boolean({ default: true, productionDefault: false }),
  },
  seedScale: {
    names: ['SEED_SCALE'],
    commands: ['serve', 'seed'],
    meaning: `catalogue size to seed: one of ${SEED_SCALES.join(', ')}`,
    details: 'at start and by `npm run seed`',
    parse: oneOf(SEED_SCALES, { default: 'sample' }),
  },
  seedDemoClient: {
    names: ['SEED_DEMO_CLIENT'],
    commands: ['serve', 'seed'],
    meaning:
      'add the demo partner client (`demo-partner`, its secret published in this README) when seeding',
    details:
      'in production only when set to true, and then said in a warning; at start and by `npm run seed`',
    // Anyone who reads the README can get tokens for the demo client: production gets it
    // only when asked, even when it asks for the sample catalogue.
    parse: boolean({ default: true, productionDefault: false }),
  },
  rateLimitAnonymousPerMinute: {
    names: ['RATE_LIMIT_ANONYMOUS_PER_MINUTE'],
    commands: SERVE,
    meaning: 'requests a minute per client IP without a token (0: unlimited)',
    details:
      'the client IP as `TRUST_PROXY` says; bursts up to that; the token endpoint counts in a ' +
      'bucket of its own of that size',
    parse: integer({ min: 0, max: 1_000_000, default: 600 }),
  },
  rateLimitClientPerMinute: {
    names: ['RATE_LIMIT_CLIENT_PER_MINUTE'],
    commands: SERVE,
    meaning: 'requests a minute per API client with a token (0: unlimited)',
    details: 'unless 0, at least the anonymous limit',
    parse: integer({ min: 0, max: 1_000_000, default: 6000 }),
  },
  // Failures slow down the address that makes them, never a right secret from elsewhere:
  // client ids are not secret, and a limit per id would let anyone lock a partner out. Five
  // free guesses per address and id leave room for a mistyped secret; a hundred per address
  // let a gateway shared by several partners through, not one address trying many ids.
  tokenFailuresPerIp: {
    names: ['TOKEN_FAILURES_PER_IP'],
    commands: SERVE,
    meaning:
      'failed token requests per client IP and window before its requests are delayed (0: never)',
    details:
      'over every client id; each further failure delays its next token request (1 s, doubling), ' +
      'never its other requests ([docs/api.md](docs/api.md#rate-limits))',
    parse: integer({ min: 0, max: 1_000_000, default: 100 }),
  },
  tokenFailuresPerIpAndClient: {
    names: ['TOKEN_FAILURES_PER_IP_AND_CLIENT'],
    commands: SERVE,
    meaning:
      'failed token requests per client IP and client id and window before delays (0: never)',
    details:
      'a guesser at one address is slowed after this many, while the right secret from any ' +
      'other address is never refused',
    parse: integer({ min: 0, max: 1_000_000, default: 5 }),
  },
  tokenFailureMaxDelaySeconds: {
    names: ['TOKEN_FAILURE_MAX_DELAY_SECONDS'],
    commands: SERVE,
    meaning: 'longest delay after failed token requests (they start at 1 s and double)',
    parse: integer({ min: 1, max: 86_400, default: 900 }),
  },
  tokenFailureWindowSeconds: {
    names: ['TOKEN_FAILURE_WINDOW_SECONDS'],
    commands: SERVE,
    meaning: 'window the token failures count in, opened by the first',
    details: 'then the free failures start again',
    parse: integer({ min: 1, max: 86_400, default: 900 }),
  },
  tokenFailuresPerClientWarning: {
    names: ['TOKEN_FAILURES_PER_CLIENT_WARNING'],
    commands: SERVE,
    meaning: 'failed token requests naming one client id in a window that log a warning (0: never)',
    details:
      'from any address; the warning names the client and counts ' +
      '`catalogue_token_client_warnings_total`, and never refuses anything. Replaces ' +
      '`TOKEN_FAILURES_PER_CLIENT`, removed: it locked a client id out, which let anyone lock a ' +
      'partner out ([docs/operations.md](docs/operations.md#rate-limits-and-token-attempts))',
    parse: integer({ min: 0, max: 1_000_000, default: 10 }),
  },
  logLevel: {
    names: ['LOG_LEVEL'],
    commands: EVERY_COMMAND,
    meaning: `one of ${LOG_LEVELS.join(', ')}`,
    details:
      "each request's line is `info`, or `warn` for a 5xx ([Logs](docs/ARCHITECTURE.md#logs))",
    parse: oneOf(LOG_LEVELS, { default: 'info' }),
  },
  logFormat: {
    names: ['LOG_FORMAT'],
    commands: EVERY_COMMAND,
    meaning: `one of ${LOG_FORMATS.join(', ')} (auto: pretty on a terminal, else JSON)`,
    details: "`json`: JSON lines on stdout; `pretty`: pino-pretty's readable lines",
    parse: oneOf(LOG_FORMATS, { default: 'auto' }),
  },
  logRequestSampleRate: {
    names: ['LOG_REQUEST_SAMPLE_RATE'],
    commands: SERVE,
    meaning: 'share (0 to 1) of successful requests logged',
    details:
      'successful: status below 400; a 4xx or 5xx is always logged, a client mistake with its ' +
      'code. The answers while the service starts (`/readyz` 503 naming the step) are not: ' +
      "the start's own lines say each step ([Logs](docs/ARCHITECTURE.md#logs))",
    parse: fraction({ default: 1 }),
  },
  buildCommit: {
    names: ['BUILD_COMMIT'],
    commands: SERVE,
    meaning: 'commit the running build was made from, the `commit` of `catalogue_build_info`',
    details:
      'set where the image is built (`docker build --build-arg BUILD_COMMIT=$(git rev-parse ' +
      'HEAD) .`); unset: the HEAD of the git checkout the service runs from, else `unknown` ' +
      '([docs/operations.md](docs/operations.md#metrics))',
    parse: { ...text({ default: '', accepts: 'a commit id' }), default: 'unset' },
  },
  feedMaxRejectedShare: {
    names: ['FEED_MAX_REJECTED_SHARE'],
    commands: ['serve', 'feed'],
    meaning: "share (0 to 1) of a feed's rows that may be rejected before the whole run is",
    details:
      "a broken export must not wipe a shop's offers: past it the run changes nothing " +
      '([docs/api.md](docs/api.md#feeds))',
    parse: fraction({ default: 0.5 }),
  },
  feedMaxBytes: {
    names: ['FEED_MAX_BYTES'],
    commands: SERVE,
    meaning: 'largest feed body a shop may send, as sent (gzip: compressed)',
    details:
      'a larger one is answered 413 and changes nothing; a feed is stored as it arrives, never ' +
      'held in memory ([docs/api.md](docs/api.md#feeds))',
    parse: integer({ min: 1024, max: 64 * 1024 ** 3, default: 512 * 1024 ** 2 }),
  },
  feedStallSeconds: {
    names: ['FEED_STALL_SECONDS'],
    commands: SERVE,
    meaning: "how long a feed's upload may send nothing before it is given up",
    details: 'answered 408; the run is not made and nothing changes',
    parse: integer({ min: 1, max: 3600, default: 30 }),
  },
  feedWaitSeconds: {
    names: ['FEED_WAIT_SECONDS'],
    commands: SERVE,
    meaning: 'longest a `?wait=true` feed request waits for its run to finish',
    details: 'past it the answer is `202` with the run as it stands, as without `wait`',
    parse: integer({ min: 1, max: 3600, default: 120 }),
  },
  feedWorkers: {
    names: ['FEED_WORKERS'],
    commands: SERVE,
    meaning: 'feed runs a process applies side by side (each for another shop)',
    details:
      'every process takes runs from the shared queue ([docs/operations.md](docs/operations.md#feed-runs))',
    parse: integer({ min: 1, max: 64, default: 2 }),
  },
  responseCacheTtlSeconds: {
    names: ['RESPONSE_CACHE_TTL_SECONDS'],
    commands: SERVE,
    meaning: 'how long an answer stays in the response cache (0: no cache)',
    details: "the same as REST's `Cache-Control: max-age`",
    // REST's max-age is 30 s too: a cached answer is never older than clients may keep one.
    parse: integer({ min: 0, max: 86_400, default: 30 }),
  },
  responseCacheMaxEntries: {
    names: ['RESPONSE_CACHE_MAX_ENTRIES'],
    commands: SERVE,
    meaning: 'most answers the in-process cache keeps',
    details: 'the least recently used leave first; ignored when the cache is in Redis',
    // A page of 15–20 products with their offers is about 90 KB of JSON (a few times that as
    // objects): 500 of the largest stay well inside the 300 MB resident-set target.
    parse: integer({ min: 1, max: 1_000_000, default: 500 }),
  },
  redisUrl: {
    names: ['REDIS_URL'],
    commands: REDIS_COMMANDS,
    meaning:
      'URL of a Redis shared for the rate limits and the response cache (unless ' +
      'RESPONSE_CACHE_REDIS_URL); unset: in process',
    details:
      'shared by every process; a Redis that is down or hung only makes answers uncached and ' +
      'limits counted per process meanwhile',
    parse: url({ protocols: ['redis:', 'rediss:'] }),
  },
  responseCacheRedisUrl: {
    names: ['RESPONSE_CACHE_REDIS_URL'],
    commands: ['serve', 'cache'],
    meaning: "URL of a Redis of the response cache's own; unset: REDIS_URL's",
    details:
      'so that evicting answers never evicts rate-limit counts ' +
      '([docs/operations.md](docs/operations.md#redis))',
    parse: url({ protocols: ['redis:', 'rediss:'] }),
  },
  redisCommandTimeoutMs: {
    names: ['REDIS_COMMAND_TIMEOUT_MS'],
    commands: REDIS_COMMANDS,
    meaning: 'how long one Redis command may take',
    details:
      'before the request goes on uncached (or its limit counted in process); after a failed ' +
      'command no command is sent until Redis answers a PING, tried every second',
    // Short, yet longer than the event loop's own hiccups (a garbage collection, compiling a
    // document).
    parse: integer({ min: 10, max: 60_000, default: 500 }),
  },
  redisKeyPrefix: {
    names: ['REDIS_KEY_PREFIX'],
    commands: REDIS_COMMANDS,
    meaning: 'prepended to every Redis key',
    parse: text({ accepts: 'text', default: 'catalogue:' }),
  },
  // graphql-armor's defaults, but for depth: the REST routes' own documents (a category's
  // products with their property trees) are 11 levels deep, and each is a /graphql document
  // too. The token bound keeps any document far from the depth where parsing would recurse
  // out of stack.
  graphqlMaxDepth: {
    names: ['GRAPHQL_MAX_DEPTH'],
    commands: SERVE,
    meaning: 'deepest selection a GraphQL document may have',
    details:
      "graphql-armor's is 6, but the REST routes' own documents are 11 deep and must pass on " +
      '`/graphql` too; introspection is not counted ([docs/api.md](docs/api.md#limits))',
    parse: integer({ min: 1, max: 1000, default: 11 }),
  },
  graphqlMaxAliases: {
    names: ['GRAPHQL_MAX_ALIASES'],
    commands: SERVE,
    meaning: 'most aliases in a GraphQL operation',
    parse: integer({ min: 0, max: 10_000, default: 15 }),
  },
  graphqlMaxTokens: {
    names: ['GRAPHQL_MAX_TOKENS'],
    commands: SERVE,
    meaning: 'most tokens in a GraphQL document',
    details: 'names, punctuation and values, counted while parsing',
    parse: integer({ min: 10, max: 1_000_000, default: 1000 }),
  },
  graphqlMaxDirectives: {
    names: ['GRAPHQL_MAX_DIRECTIVES'],
    commands: SERVE,
    meaning: 'most directives in a GraphQL operation',
    parse: integer({ min: 0, max: 10_000, default: 50 }),
  },
  // The largest REST request, every field of 100 products with 100 offers each
  // (/v1/products), costs 557,601; the budget leaves room for a page of 250 products with
  // 100 offers each.
  graphqlMaxCost: {
    names: ['GRAPHQL_MAX_COST'],
    commands: SERVE,
    meaning: 'cost budget of a GraphQL operation (page sizes multiply)',
    details:
      'each field costs 1 and a page multiplies what is below it by its size (`first`, or the ' +
      'number of `ids`); the largest REST request costs about 560,000',
    parse: integer({ min: 1, max: 1_000_000_000, default: 1_000_000 }),
  },
  graphiql: {
    names: ['GRAPHIQL'],
    commands: SERVE,
    meaning: 'serve GraphiQL at /graphql to browsers (in production only when set to true)',
    details:
      'with `TRUSTED_DOCUMENTS_ONLY`, its requests may still send any document: they carry a ' +
      'header any client could send, so keep it off where only trusted documents may run ' +
      '([docs/operations.md](docs/operations.md#trusted-documents))',
    parse: boolean({ default: true, productionDefault: false }),
  },
  trustedDocumentsOnly: {
    names: ['TRUSTED_DOCUMENTS_ONLY'],
    commands: SERVE,
    meaning: 'run only trusted documents, sent by id; a document sent as text is refused',
    details:
      'the documents `npm run documents -- add` stored; for production, once every client ' +
      'sends ids ([docs/api.md](docs/api.md#trusted-documents))',
    parse: boolean({ default: false }),
  },
  trustedDocumentsCacheSize: {
    names: ['TRUSTED_DOCUMENTS_CACHE_SIZE'],
    commands: SERVE,
    meaning: 'most trusted documents a process keeps parsed, in front of the database',
    details: 'the least recently used leave first; a document kept costs no SQL and no parsing',
    parse: integer({ min: 1, max: 1_000_000, default: 1000 }),
  },
  graphqlMaxBodyBytes: {
    names: ['GRAPHQL_MAX_BODY_BYTES'],
    commands: SERVE,
    meaning: 'largest /graphql request body in bytes',
    details: 'a larger one is a 413 before it is parsed',
    // A thousand-token document is a few kilobytes; variables (20 ids, 10 GTINs) far less.
    parse: integer({ min: 1024, max: 100 * 1024 * 1024, default: 100 * 1024 }),
  },
  // A catalogue page takes tens of milliseconds: ten seconds is far past any honest request,
  // and a statement gets half of it, so that a slow one is answered before the deadline.
  requestTimeoutMs: {
    names: ['REQUEST_TIMEOUT_MS'],
    commands: SERVE,
    meaning: 'how long a request may take before it is answered 503',
    details:
      'with `Retry-After` (code `TIMEOUT` on `/graphql`); its work stops before its next SQL ' +
      'statement, as it does when the client goes away ([docs/api.md](docs/api.md#limits))',
    parse: integer({ min: 10, max: 600_000, default: 10_000 }),
  },
  statementTimeoutMs: {
    names: ['STATEMENT_TIMEOUT_MS'],
    commands: SERVE,
    meaning: 'longest SQL statement of a request on a PostgreSQL server (0: unbounded)',
    details:
      "PostgreSQL's `statement_timeout`: one past it is cancelled and the request answered " +
      'like one past its deadline; migrating and seeding are not bounded; the embedded ' +
      'database cannot interrupt a statement',
    parse: integer({ min: 0, max: 600_000, default: 5_000 }),
  },
  // The shipped HAProxy takes a gateway out after at most 1 s + 0.5 s + two 2 s checks
  // (deploy/haproxy/haproxy.cfg): 8 s leaves it a margin, as orchestrators' pre-stop waits do.
  shutdownGraceSeconds: {
    names: ['SHUTDOWN_GRACE_SECONDS'],
    commands: SERVE,
    meaning: 'how long SIGTERM keeps serving, `/readyz` 503, before the drain begins',
    details:
      'so that the load balancer takes the process out first: at least its check interval × ' +
      'fall plus the checks themselves and a margin ' +
      '([docs/operations.md](docs/operations.md#shutdown)); 0 for none; SIGINT and a second ' +
      'signal skip it',
    parse: integer({ min: 0, max: 600, default: 8 }),
  },
  shutdownDrainSeconds: {
    names: ['SHUTDOWN_DRAIN_SECONDS'],
    commands: SERVE,
    meaning: 'how long the drain after the grace waits for accepted requests before exiting',
    details:
      "keep it at least `REQUEST_TIMEOUT_MS`, and the grace plus the drain below Docker's " +
      '`stop_grace_period`; then the process exits 1, logging what was left',
    // Docker's own grace before SIGKILL is 10 s; docker-compose.yml gives the gateway more.
    // At least 2: the drain gives idle connections, and clients still connecting, 1 s.
    parse: integer({ min: 2, max: 3600, default: 10 }),
  },
  liveSubscriptionsPerConnection: {
    names: ['LIVE_SUBSCRIPTIONS_PER_CONNECTION'],
    commands: SERVE,
    meaning: 'subscriptions one connection may hold open (a graphql-ws socket; SSE: one each)',
    details:
      'one more is refused with `RATE_LIMITED` (429 over SSE, an error message over ' +
      'graphql-ws) ([docs/api.md](docs/api.md#live-updates))',
    parse: integer({ min: 1, max: 1000, default: 20 }),
  },
  liveSubscriptionsPerClientIp: {
    names: ['LIVE_SUBSCRIPTIONS_PER_CLIENT_IP'],
    commands: SERVE,
    meaning: 'subscriptions one client IP may hold open in one process, over both transports',
    details: 'the client IP as `TRUST_PROXY` says; one more is refused with `RATE_LIMITED`',
    parse: integer({ min: 1, max: 100_000, default: 100 }),
  },
  liveBufferEvents: {
    names: ['LIVE_BUFFER_EVENTS'],
    commands: SERVE,
    meaning: 'events held for a subscriber that reads slower than they come',
    details:
      'one more and the subscription gets a `SERVICE_UNAVAILABLE` error (reason ' +
      '`slow_consumer`) and ends: subscribe again and refetch',
    parse: integer({ min: 1, max: 100_000, default: 100 }),
  },
  liveKeepAliveSeconds: {
    names: ['LIVE_KEEPALIVE_SECONDS'],
    commands: SERVE,
    meaning: 'how often an idle graphql-ws socket is pinged',
    details: 'a socket that misses a pong is closed; SSE streams send a comment every 12 s',
    parse: integer({ min: 1, max: 3600, default: 12 }),
  },
  changesRetentionDays: {
    names: ['CHANGES_RETENTION_DAYS'],
    commands: SERVE,
    meaning: 'days the outbox of catalogue changes is kept',
    details:
      'older rows are deleted hourly by the serving process ' +
      '([docs/operations.md](docs/operations.md#live-updates))',
    parse: integer({ min: 1, max: 3650, default: 7 }),
  },
  dataLoaderBatching: {
    names: ['DATALOADER_BATCHING'],
    commands: SERVE,
    meaning: "batch each request's loads (false only for the benchmark)",
    details: "and deduplicate them; `false` is the benchmark's naive floor: a statement per row",
    parse: boolean({ default: true }),
  },
  compiledSelections: {
    names: ['COMPILED_SELECTIONS'],
    commands: SERVE,
    meaning: 'answer covered root fields with one statement each (false only for tests)',
    details:
      '`false` runs every field on its resolver, as the equivalence test compares ' +
      '([docs/ARCHITECTURE.md](docs/ARCHITECTURE.md#compiled-root-fields)); off too without DataLoader batching',
    parse: boolean({ default: true }),
  },
} as const satisfies Record<string, Setting<unknown>>;

type Settings = typeof SETTINGS;

/** The settings as the service uses them, one field per declaration above. */
export type Config = { [Key in keyof Settings]: ReturnType<Settings[Key]['parse']['read']> };
