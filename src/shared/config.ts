/**
 * Configuration: every environment variable is read here, once, at boot.
 * All problems are reported together; the caller prints them and exits
 * non-zero. Nothing else in the service reads `process.env`.
 */
import path from 'node:path';
import { z } from 'zod';
import { TrustedProxies } from './client-address.js';

/** Signal to exit: SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS stay within it, so the process is gone within 10 s (`docker stop`'s grace). */
const SHUTDOWN_BUDGET_MS = 9500;

const port = z.coerce.number().int().min(0).max(65535);

const HTTP_URL = /^https?:\/\/[^\s/]+(\/[^\s]*)?$/;

/** OTEL_TRACES_SAMPLER values (the OpenTelemetry specification's, less the Jaeger remote sampler). */
const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

/**
 * `key=value,key2=value2` with percent-encoded values (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES),
 * or null when malformed. Bounded by the variable's own length (the environment is the operator's).
 */
export function parseKeyValueList(text: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key)) return null;
    try {
      out[key] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      // A malformed percent escape is a bad value (reported by the caller), not an exception.
      return null;
    }
  }
  return out;
}

/** Contract §13: where and how spans are exported; null in {@link Config} = tracing off. */
export interface TracingConfig {
  /** The full traces URL (`…/v1/traces`). */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  sampler: SamplerName;
  /** The traceidratio samplers' ratio, 0–1. */
  ratio: number;
  /** OTEL_BSP_SCHEDULE_DELAY: how long a finished span waits for its batch at most (ms). */
  batchDelayMs: number;
}

/** An OTLP protocol variable (contract §13): the two HTTP encodings the exporters speak. */
const otlpProtocol = z.enum(['http/protobuf', 'http/json'], { message: 'must be http/protobuf or http/json (grpc is not supported)' }).optional();
/** An OTLP headers variable: `key=value` pairs (see parseKeyValueList). */
const otlpHeaders = z.string().optional().superRefine((v, ctx) => {
  if (v !== undefined && parseKeyValueList(v) === null) ctx.addIssue({ code: 'custom', message: 'must be key=value pairs separated by commas' });
});

const envSchema = z.object({
  PORT: port.default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  /** 32-byte master key as 64 hex characters or base64; absent = key file in DATA_DIR. */
  MASTER_KEY: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || decodeMasterKey(v) !== null, 'must be 32 bytes as 64 hex characters or base64'),
  SIGNATURE_MAX_SKEW_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10 * 1024 * 1024).default(100 * 1024),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** `json` (one JSON object per line), `pretty` (human-readable), `auto` = pretty when stdout is a terminal. */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  /** Bearer token required by GET /metrics; unset = /metrics is public. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * After SIGTERM: how long /ready reports not-ready while requests are still served, before the listener
   * closes. The default outlasts a health-checking balancer's detection time (HAProxy `inter 1s fall 2`:
   * at most 2 s, docs/SCALING.md) with 1 s to spare, so a drain behind it loses no request.
   */
  SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(5000).default(3000),
  /**
   * After the listener closed: how long in-flight requests may take before connections are cut.
   * Unset: whatever the delay leaves of the 9.5 s budget (9500 - SHUTDOWN_DELAY_MS), so every valid
   * delay starts with the default timeout.
   */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(9000).optional(),
  /** Per API key rate budget: sustained requests/s and burst (README "Limits, rate limiting and failure behaviour"). */
  RATE_LIMIT_PER_SECOND: z.coerce.number().positive().max(100_000).default(50),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).max(1_000_000).default(100),
  /**
   * Most work units one checkout-session request may cost (a list or a calculation is 1, pricing a list's
   * channels 2 more; README "Rate limits"); heavier documents get 403 SESSION_SCOPE before they execute.
   */
  SESSION_MAX_COST: z.coerce.number().int().min(1).max(1000).default(6),
  /** Work units per second per process that merchants share fairly while they compete (README "Rate limits"). */
  MERCHANT_SHARE_CAPACITY: z.coerce.number().int().min(1).max(100_000_000).default(2000),
  /** Failed authentications per minute per client address before 429. */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(20),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).max(100).default(8),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(1).max(1000).default(15),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(10).max(100_000).default(1000),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).max(1_000_000).default(5000),
  GRAPHQL_TIMEOUT_MS: z.coerce.number().int().min(10).max(600_000).default(5000),
  /** Open subscription event streams per API key (contract §8); one more is refused with 429. */
  SUBSCRIPTIONS_PER_KEY: z.coerce.number().int().min(1).max(10_000).default(10),
  /**
   * Open event streams this process holds at most (contract §8b); one more is refused with 503 + Retry-After.
   * Default measured in docs/PERFORMANCE.md; each stream costs about two file descriptors' worth of the
   * process's LimitNOFILE budget at the balancer and one here (docs/OPERATIONS.md).
   */
  MAX_OPEN_STREAMS: z.coerce.number().int().min(1).max(1_000_000).default(15_000),
  /**
   * Successful GraphQL / REST-calculate answers kept per (API key, exact body) until the data changes
   * (src/pipeline/plugins/use-answer-cache.ts); 0 turns that cache off (every request executes).
   */
  ANSWER_CACHE_ENTRIES: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  /**
   * Contract §15: per-process caches sized for many merchants. Verified API keys (a decrypted secret each) and
   * REST channel lists (one per merchant and filter; 64 MiB at most whatever the count) kept until the data
   * changes; past the bound the oldest entry goes. Size them at the number of merchants a replica serves.
   */
  KEY_CACHE_ENTRIES: z.coerce.number().int().min(1).max(10_000_000).default(100_000),
  REST_LIST_CACHE_ENTRIES: z.coerce.number().int().min(1).max(10_000_000).default(20_000),
  /** Derived channel lists the in-memory catalogue keeps (a handful of shared records each); the oldest goes first. */
  CATALOGUE_LIST_CACHE_ENTRIES: z.coerce.number().int().min(1).max(10_000_000).default(100_000),
  /**
   * Contract §15: `change_log` rows older than this are pruned by the servers. Default MAX_STALENESS_SECONDS
   * plus an hour; must exceed MAX_STALENESS_SECONDS by at least a minute (a replica that falls further
   * behind reloads everything).
   */
  CHANGE_LOG_RETENTION_SECONDS: z.coerce.number().int().min(60).max(30 * 86_400).optional(),
  /** Server processes behind the one port (node:cluster, src/app/cluster.ts); 1 = no cluster. */
  WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  /**
   * Postgres connection URL (contract §6): all durable state in Postgres, for several replicas.
   * Unset: the embedded SQLite database in DATA_DIR.
   */
  DATABASE_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || /^postgres(ql)?:\/\/[^\s]+$/.test(v), 'must be a postgres:// or postgresql:// URL'),
  /** Redis URL: rate-limit budgets shared by every replica. Unset: each process keeps its own. */
  REDIS_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || /^rediss?:\/\/[^\s]+$/.test(v), 'must be a redis:// or rediss:// URL'),
  /**
   * Idle keep-alive of client connections. Longer than common load-balancer idle timeouts (60 s), so a
   * balancer never reuses a socket this server has just closed (the classic intermittent 502).
   */
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(65_000),
  /**
   * Contract §6: how long a replica keeps serving its last catalogue while the database cannot be reached,
   * counted from the last moment it was known current; 0 = refuse at once. One day at most (a bound, not "forever").
   */
  MAX_STALENESS_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  /** Contract §6: `false` = never migrate or seed at start; wait (not ready) for `npm run migrate`. */
  MIGRATE_ON_START: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  /**
   * The URL clients reach this server at when it runs behind a load balancer (the balancer's); the start-up
   * banner shows it instead of the listening address. Unset: the listening address.
   */
  PUBLIC_BASE_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || /^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(v), 'must be an http:// or https:// URL'),
  /**
   * Contract §6: the load balancers whose client address is taken (from their `X-Forwarded-For`), as
   * addresses and CIDRs separated by commas or spaces. Unset: none; every request is the socket peer's.
   */
  TRUSTED_PROXIES: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      for (const problem of v === undefined ? [] : TrustedProxies.parse(v).problems) ctx.addIssue({ code: 'custom', message: problem });
    }),
  /** Contract §11: lifetime of a fee quote, seconds (a checkout session's quotes never outlive the session). */
  QUOTE_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  /**
   * Contract §13: OpenTelemetry traces over OTLP, configured by OpenTelemetry's own variables. No endpoint:
   * tracing is off (no SDK loaded, no per-request work). OTEL_EXPORTER_OTLP_ENDPOINT is a base URL
   * (`/v1/traces` is appended); OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional().refine((v) => v === undefined || HTTP_URL.test(v), 'must be an http:// or https:// URL'),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().optional().refine((v) => v === undefined || HTTP_URL.test(v), 'must be an http:// or https:// URL'),
  /**
   * The OTLP protocol; OpenTelemetry's general variable applies unless the traces one is set (the SDKs' rule).
   * grpc is refused at boot, not sent as HTTP to a gRPC port where every export would fail.
   */
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol,
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol,
  /**
   * `key=value` pairs separated by commas, values percent-encoded (W3C baggage format), sent with every export;
   * the traces variable's pairs are added to the general one's, and win for the same name.
   */
  OTEL_EXPORTER_OTLP_HEADERS: otlpHeaders,
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: otlpHeaders,
  OTEL_SERVICE_NAME: z.string().min(1).max(255).default('payment-gateway'),
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional().superRefine((v, ctx) => {
    if (v !== undefined && parseKeyValueList(v) === null) ctx.addIssue({ code: 'custom', message: 'must be key=value pairs separated by commas' });
  }),
  OTEL_TRACES_SAMPLER: z.enum(SAMPLERS, { message: `must be one of ${SAMPLERS.join(', ')}` }).default('parentbased_traceidratio'),
  /** The ratio of the `traceidratio` samplers, 0–1. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(0.05),
  /** Batch span processor: the most a finished span waits before its batch is exported (ms). */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).max(60_000).default(5000),
  /** `true`: tracing off whatever the endpoint says. */
  OTEL_SDK_DISABLED: z.enum(['true', 'false', 'TRUE', 'FALSE', 'True', 'False']).default('false').transform((v) => v.toLowerCase() === 'true'),
  /** Seed demo merchants/channels into an empty database (default on). */
  SEED_DEMO_DATA: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
})
  .refine((e) => e.CHANGE_LOG_RETENTION_SECONDS === undefined || e.CHANGE_LOG_RETENTION_SECONDS >= e.MAX_STALENESS_SECONDS + 60, {
    message: 'CHANGE_LOG_RETENTION_SECONDS must be at least MAX_STALENESS_SECONDS + 60 (a replica may lag that long and must still find the changes it missed)',
    path: ['CHANGE_LOG_RETENTION_SECONDS'],
    when: (payload) => !payload.issues.some((i) => ['CHANGE_LOG_RETENTION_SECONDS', 'MAX_STALENESS_SECONDS'].includes(String(i.path?.[0]))),
  })
  .refine((e) => e.SHUTDOWN_TIMEOUT_MS === undefined || e.SHUTDOWN_DELAY_MS + e.SHUTDOWN_TIMEOUT_MS <= SHUTDOWN_BUDGET_MS, {
  message: 'SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS must not exceed 9500 (the process must exit within 10 s of a signal)',
  path: ['SHUTDOWN_TIMEOUT_MS'],
  // Run even when other variables failed (all problems at once), but only on two valid numbers.
  when: (payload) => !payload.issues.some((i) => ['SHUTDOWN_DELAY_MS', 'SHUTDOWN_TIMEOUT_MS'].includes(String(i.path?.[0]))),
});

/** Names of every environment variable the service reads (the README table lists each). */
export const ENV_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/** Validated configuration of one server process. */
export interface Config {
  port: number;
  host: string;
  /** Absolute path of the data directory. */
  dataDir: string;
  /** Decoded master key, or null to use/generate `<dataDir>/master.key`. */
  masterKey: Buffer | null;
  maxSkewSeconds: number;
  bodyLimitBytes: number;
  logLevel: string;
  nodeEnv: 'development' | 'production' | 'test';
  seedDemoData: boolean;
  logFormat: 'auto' | 'json' | 'pretty';
  /** Bearer token for /metrics, or null when /metrics is public. */
  metricsToken: string | null;
  shutdownDelayMs: number;
  shutdownTimeoutMs: number;
  rateLimit: { perSecond: number; burst: number; authFailuresPerMinute: number; sessionMaxCost: number; merchantShareCapacity: number };
  graphqlLimits: { maxDepth: number; maxAliases: number; maxTokens: number; maxCost: number; executionTimeoutMs: number };
  /** Number of server processes (node:cluster workers) sharing the port and the SQLite file. */
  workers: number;
  /** Answer cache size in entries; 0 = off. */
  answerCacheEntries: number;
  /** Contract §15: per-process cache bounds (entries). */
  caches: { keys: number; restLists: number; catalogueLists: number };
  /** Contract §15: change-log rows older than this are pruned (s). */
  changeLogRetentionSeconds: number;
  /** Open subscription event streams allowed per API key (per process). */
  subscriptionsPerKey: number;
  /** MAX_OPEN_STREAMS: event streams per process. */
  maxOpenStreams: number;
  /** Postgres URL (all durable state there), or null for SQLite in `dataDir`. */
  databaseUrl: string | null;
  /** Redis URL for shared rate-limit budgets, or null for per-process budgets. */
  redisUrl: string | null;
  /** `server.keepAliveTimeout`; `headersTimeout` is set a little above it. */
  keepAliveTimeoutMs: number;
  /** How long the last catalogue is served while the database cannot be reached (s); 0 = refuse at once. */
  maxStalenessSeconds: number;
  /** Migrate (and seed) at start; false = wait for `npm run migrate`, never write DDL or seed. */
  migrateOnStart: boolean;
  /** Where clients reach this server (a load balancer), without a trailing slash; null = the listening address. */
  publicBaseUrl: string | null;
  /** TRUSTED_PROXIES: the balancers whose `X-Forwarded-For` names the client; null = none (the socket peer). */
  trustedProxies: TrustedProxies | null;
  /** Lifetime of a fee quote in seconds (contract §11), 60–86400. */
  quoteTtlSeconds: number;
  /** Contract §13: OpenTelemetry export, or null when tracing is off (no endpoint, or OTEL_SDK_DISABLED=true). */
  tracing: TracingConfig | null;
}

function tracingOf(e: z.infer<typeof envSchema>): TracingConfig | null {
  const url = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT === undefined ? undefined : `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  if (url === undefined || e.OTEL_SDK_DISABLED) return null;
  return {
    url,
    protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    headers: { ...parseKeyValueList(e.OTEL_EXPORTER_OTLP_HEADERS ?? ''), ...parseKeyValueList(e.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? '') },
    serviceName: e.OTEL_SERVICE_NAME,
    resourceAttributes: e.OTEL_RESOURCE_ATTRIBUTES === undefined ? {} : parseKeyValueList(e.OTEL_RESOURCE_ATTRIBUTES) ?? {},
    sampler: e.OTEL_TRACES_SAMPLER,
    ratio: e.OTEL_TRACES_SAMPLER_ARG,
    batchDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
  };
}

/** Decode a 32-byte key from 64 hex characters or base64; null if it is neither. */
export function decodeMasterKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(trimmed)) {
    const buf = Buffer.from(trimmed, 'base64');
    if (buf.length === 32) return buf;
  }
  return null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parse and validate the environment. Throws {@link ConfigError} listing every problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as "not set", as a shell `FOO= npm start` means.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    masterKey: e.MASTER_KEY ? decodeMasterKey(e.MASTER_KEY) : null,
    maxSkewSeconds: e.SIGNATURE_MAX_SKEW_SECONDS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    logLevel: e.LOG_LEVEL,
    nodeEnv: e.NODE_ENV,
    seedDemoData: e.SEED_DEMO_DATA,
    logFormat: e.LOG_FORMAT,
    metricsToken: e.METRICS_TOKEN ?? null,
    shutdownDelayMs: e.SHUTDOWN_DELAY_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS ?? SHUTDOWN_BUDGET_MS - e.SHUTDOWN_DELAY_MS,
    rateLimit: { perSecond: e.RATE_LIMIT_PER_SECOND, burst: e.RATE_LIMIT_BURST, authFailuresPerMinute: e.AUTH_FAILURES_PER_MINUTE, sessionMaxCost: e.SESSION_MAX_COST, merchantShareCapacity: e.MERCHANT_SHARE_CAPACITY },
    graphqlLimits: {
      maxDepth: e.GRAPHQL_MAX_DEPTH,
      maxAliases: e.GRAPHQL_MAX_ALIASES,
      maxTokens: e.GRAPHQL_MAX_TOKENS,
      maxCost: e.GRAPHQL_MAX_COST,
      executionTimeoutMs: e.GRAPHQL_TIMEOUT_MS,
    },
    workers: e.WORKERS,
    answerCacheEntries: e.ANSWER_CACHE_ENTRIES,
    caches: { keys: e.KEY_CACHE_ENTRIES, restLists: e.REST_LIST_CACHE_ENTRIES, catalogueLists: e.CATALOGUE_LIST_CACHE_ENTRIES },
    changeLogRetentionSeconds: e.CHANGE_LOG_RETENTION_SECONDS ?? e.MAX_STALENESS_SECONDS + 3600,
    subscriptionsPerKey: e.SUBSCRIPTIONS_PER_KEY,
    maxOpenStreams: e.MAX_OPEN_STREAMS,
    databaseUrl: e.DATABASE_URL ?? null,
    redisUrl: e.REDIS_URL ?? null,
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    maxStalenessSeconds: e.MAX_STALENESS_SECONDS,
    migrateOnStart: e.MIGRATE_ON_START,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? null,
    trustedProxies: e.TRUSTED_PROXIES === undefined ? null : TrustedProxies.parse(e.TRUSTED_PROXIES).proxies,
    quoteTtlSeconds: e.QUOTE_TTL_SECONDS,
    tracing: tracingOf(e),
  };
}
