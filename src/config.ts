/**
 * Configuration: every environment variable is read here, once, at boot.
 * All problems are reported together; the caller prints them and exits
 * non-zero. Nothing else in the service reads `process.env`.
 */
import path from 'node:path';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);

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
  /** Server processes behind the one port (node:cluster, src/cluster.ts); 1 = no cluster. */
  WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  /** Seed demo merchants/channels into an empty database (default on). */
  SEED_DEMO_DATA: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
});

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
  /** Number of server processes (node:cluster workers) sharing the port and the SQLite file. */
  workers: number;
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
    workers: e.WORKERS,
  };
}
