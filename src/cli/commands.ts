/**
 * What each command of src/main.ts accepts and says in `--help`. The commands themselves
 * (serve.ts, migrate.ts, seed.ts, clients.ts, feed.ts, documents.ts, cache.ts) are loaded only
 * to run:
 * `--help` and a mistake on the command line answer without loading the service.
 */
import { SEED_SCALES } from '../config.ts';
import { FEED_FORMATS } from '../feeds/feed-record.ts';
import { OWNED_REF_PATTERN } from '../auth/client-id.ts';
import {
  environmentOf,
  type CommandGroupSpec,
  type CommandSpec,
  type OptionSpec,
} from './command-line.ts';

const MAX_SEED = 0xffff_ffff;
/** PostgreSQL's largest `integer`, the type of ids. */
const MAX_INTEGER = 0x7fff_ffff;

export const SERVE = {
  invocation: 'npm start --',
  summary:
    'Serves the catalogue on PORT: GraphQL, the REST routes and the operations routes.\n' +
    'It binds the port first, then migrates and fills an empty catalogue (SEED_ON_EMPTY);\n' +
    '/readyz answers 503 until that is done. SIGTERM or SIGINT stops it gracefully.',
  options: {},
  environment: environmentOf('serve'),
} satisfies CommandSpec<Record<never, never>>;

export const MIGRATE = {
  invocation: 'npm run migrate --',
  summary: 'Applies the pending migrations (schema/migrations/) and exits.',
  options: {},
  environment: environmentOf('migrate'),
} satisfies CommandSpec<Record<never, never>>;

export const SEED = {
  invocation: 'npm run seed --',
  summary:
    'Fills the catalogue with the deterministic generated catalogue, after migrating.\n' +
    'Refuses a catalogue that is not empty unless --force is given, and an embedded data\n' +
    'directory that another process (a running server) holds.',
  options: {
    scale: {
      type: 'string',
      value: 'SCALE',
      description: `catalogue size: ${SEED_SCALES.join(', ')} (default: SEED_SCALE)`,
      choices: SEED_SCALES,
    },
    seed: {
      type: 'string',
      value: 'N',
      description: `generator seed, 0 to ${MAX_SEED} (default: 1)`,
      range: [0, MAX_SEED],
    },
    'as-of': {
      type: 'string',
      value: 'YYYY-MM-DD',
      calendarDay: true,
      description: "the catalogue's today: history ends the day before (default: today, UTC)",
    },
    force: { type: 'boolean', description: 'replace a catalogue that is not empty' },
  },
  environment: environmentOf('seed'),
} satisfies CommandSpec<Record<string, OptionSpec>>;

const CLIENTS_INVOCATION = 'npm run clients --';
const JSON_OPTION = {
  type: 'boolean',
  description: 'print JSON for scripts instead of text',
} as const satisfies OptionSpec;
const CLIENT_NAME = {
  name: 'NAME',
  description: 'who the client is for, as operators will recognise it in `list`',
  matches: { pattern: /\S/, accepts: 'a name that is not blank' },
} as const;
const NEW_CLIENT =
  'Prints the new client id and its secret once: only the secret’s hash is stored.';
const CLIENT_ID_OPERAND = { name: 'CLIENT_ID', description: 'the client, as `list` shows it' };
/** An IPv4 address, or an IPv6 one (a colon somewhere): as the request log's clientIp. */
const IP_ADDRESS = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*)$/;

export const ADD_PARTNER = {
  invocation: `${CLIENTS_INVOCATION} add-partner`,
  summary: `Adds a partner's client owning the given refs.\n${NEW_CLIENT}`,
  operands: [CLIENT_NAME],
  options: {
    ref: {
      type: 'string',
      value: 'REF',
      description: 'a ref the client owns; no other client may own it',
      matches: { pattern: OWNED_REF_PATTERN, accepts: '1 to 64 of A-Z a-z 0-9 . _ -' },
      multiple: true,
      required: true,
    },
    json: JSON_OPTION,
  },
  environment: environmentOf('clients'),
  logsToStderr: true,
} satisfies CommandSpec<Record<string, OptionSpec>>;

export const ADD_SHOP = {
  invocation: `${CLIENTS_INVOCATION} add-shop`,
  summary: `Adds a shop's client: it writes that shop's feeds only.\n${NEW_CLIENT}`,
  operands: [CLIENT_NAME],
  options: {
    shop: {
      type: 'string',
      value: 'ID',
      description: 'the shop (one shop in one market), which must exist',
      range: [1, MAX_INTEGER],
      required: true,
    },
    json: JSON_OPTION,
  },
  environment: environmentOf('clients'),
  logsToStderr: true,
} satisfies CommandSpec<Record<string, OptionSpec>>;

export const LIST_CLIENTS = {
  invocation: `${CLIENTS_INVOCATION} list`,
  summary: 'Lists the clients: id, name, kind, refs or shop, when added.',
  options: { json: JSON_OPTION },
  environment: environmentOf('clients'),
  logsToStderr: true,
} satisfies CommandSpec<Record<string, OptionSpec>>;

export const REVOKE_CLIENT = {
  invocation: `${CLIENTS_INVOCATION} revoke`,
  summary:
    'Deletes a client: it gets no new token, and its refs are free for another. The serving\n' +
    'processes are told and refuse the tokens it holds from then on (one that missed it\n' +
    'within TOKEN_CLIENTS_REFRESH_SECONDS).',
  operands: [CLIENT_ID_OPERAND],
  options: {},
  environment: environmentOf('clients'),
  logsToStderr: true,
} satisfies CommandSpec<Record<string, OptionSpec>>;

export const UNLOCK_CLIENT = {
  invocation: `${CLIENTS_INVOCATION} unlock`,
  summary:
    "Lifts the delays a client's failed token requests earned, at every address or at one:\n" +
    'forgets those failures in Redis (REDIS_URL) and tells the serving processes on the\n' +
    'database to forget what they counted in memory.',
  operands: [CLIENT_ID_OPERAND],
  options: {
    address: {
      type: 'string',
      value: 'IP',
      description:
        "only this address's failures for the client, and the address's own over every " +
        "client id (the address as the request log's clientIp shows it)",
      matches: { pattern: IP_ADDRESS, accepts: 'an IPv4 or IPv6 address' },
    },
  },
  environment: environmentOf('clients'),
  logsToStderr: true,
} satisfies CommandSpec<Record<string, OptionSpec>>;

export const CLIENTS = {
  invocation: CLIENTS_INVOCATION,
  summary:
    'Manages the API clients that get access tokens at POST /partner-search/token (OAuth 2.0\n' +
    "client credentials): partners' clients, owning refs, and shops' clients, each writing one\n" +
    "shop's feeds. It migrates first, and refuses an embedded data directory another process\n" +
    '(a running server) holds.',
  subcommands: {
    'add-partner': ADD_PARTNER,
    'add-shop': ADD_SHOP,
    list: LIST_CLIENTS,
    revoke: REVOKE_CLIENT,
    unlock: UNLOCK_CLIENT,
  },
} satisfies CommandGroupSpec;

export const FEED = {
  invocation: 'npm run feed --',
  summary:
    "Applies a shop's full feed from a file, as PUT /feeds/shops/{shopId} does: the shop's\n" +
    'offers become exactly the feed\'s valid, matched rows (docs/api.md, "Feeds"). Prints the\n' +
    "run's report; exits 1 when the feed was rejected as a whole. A .gz file is read as gzip.",
  operands: [{ name: 'FILE', description: 'the feed: .tsv, .csv or .xml, optionally .gz' }],
  options: {
    shop: {
      type: 'string',
      value: 'ID',
      description: 'the shop (one shop in one market) whose offers the feed holds',
      range: [1, MAX_INTEGER],
      required: true,
    },
    format: {
      type: 'string',
      value: 'FORMAT',
      description: `${FEED_FORMATS.join(', ')} (default: from the file's extension)`,
      choices: FEED_FORMATS,
    },
    json: JSON_OPTION,
  },
  environment: environmentOf('feed'),
  logsToStderr: true,
} satisfies CommandSpec<Record<string, OptionSpec>>;

const DOCUMENTS_INVOCATION = 'npm run documents --';

export const ADD_DOCUMENTS = {
  invocation: `${DOCUMENTS_INVOCATION} add`,
  summary:
    "Stores a manifest's documents as trusted, for clients to send by id.\n" +
    "Relay's persist output or GraphQL Code Generator's persisted-documents.json:\n" +
    '{ "<sha256 hex>": "<document>" }. Each key must be the sha256 of its document and each\n' +
    'document valid against the schema; otherwise nothing is stored and each refused entry\n' +
    'is named (exit 1). Documents already stored stay as they are.',
  operands: [{ name: 'FILE', description: 'the manifest (JSON)' }],
  options: {
    source: {
      type: 'string',
      value: 'NAME',
      description: "what `list` shows the documents came from (default: the file's name)",
      matches: { pattern: /\S/, accepts: 'a name that is not blank' },
    },
    json: JSON_OPTION,
  },
  environment: environmentOf('documents'),
  logsToStderr: true,
} satisfies CommandSpec<Record<string, OptionSpec>>;

export const LIST_DOCUMENTS = {
  invocation: `${DOCUMENTS_INVOCATION} list`,
  summary: 'Lists the trusted documents: id, operations, source, when added.',
  options: { json: JSON_OPTION },
  environment: environmentOf('documents'),
  logsToStderr: true,
} satisfies CommandSpec<Record<string, OptionSpec>>;

export const DOCUMENTS = {
  invocation: DOCUMENTS_INVOCATION,
  summary:
    "Manages the trusted documents /graphql runs by id (documentId, or Apollo's\n" +
    'persistedQuery extension), shared by every process through the database. It migrates\n' +
    'first, and refuses an embedded data directory another process (a running server) holds.',
  subcommands: { add: ADD_DOCUMENTS, list: LIST_DOCUMENTS },
} satisfies CommandGroupSpec;

const CACHE_INVOCATION = 'npm run cache --';

export const PURGE_CACHE = {
  invocation: `${CACHE_INVOCATION} purge`,
  summary:
    'Empties the response cache: the answers in its Redis (RESPONSE_CACHE_REDIS_URL, else\n' +
    'REDIS_URL) and, on a PostgreSQL server (DATABASE_URL), those of each serving process,\n' +
    'which it tells.\n' +
    'Feed runs drop what they change by themselves: this is for a catalogue changed otherwise.',
  options: {},
  environment: environmentOf('cache'),
  logsToStderr: true,
} satisfies CommandSpec<Record<string, OptionSpec>>;

export const CACHE = {
  invocation: CACHE_INVOCATION,
  summary:
    'Manages the response cache of the serving processes (docs/operations.md, "Purging the\n' +
    'cache").',
  subcommands: { purge: PURGE_CACHE },
} satisfies CommandGroupSpec;
