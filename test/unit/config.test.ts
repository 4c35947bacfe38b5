import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ENV_VARIABLES, loadConfig } from '../../src/shared/config.js';

describe('configuration', () => {
  it('the README table lists every variable with its default', () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, '../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'));
    expect(ENV_VARIABLES.length).toBeGreaterThan(10);
    for (const name of ENV_VARIABLES) expect(section, name).toMatch(new RegExp(`^\\| \`${name}\` \\| [^|]+ \\|`, 'm'));
  });

  it('defaults of the operations variables', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ logFormat: 'auto', metricsToken: null, shutdownDelayMs: 3000, shutdownTimeoutMs: 6500, publicBaseUrl: null });
  });

  it('contract §15: cache bounds and the change-log retention, validated against MAX_STALENESS_SECONDS', () => {
    expect(loadConfig({})).toMatchObject({ caches: { keys: 100_000, restLists: 20_000, catalogueLists: 100_000 }, changeLogRetentionSeconds: 300 + 3600 });
    expect(loadConfig({ MAX_STALENESS_SECONDS: '60' }).changeLogRetentionSeconds).toBe(60 + 3600);
    expect(loadConfig({ MAX_STALENESS_SECONDS: '600', CHANGE_LOG_RETENTION_SECONDS: '660' }).changeLogRetentionSeconds).toBe(660);
    expect(() => loadConfig({ MAX_STALENESS_SECONDS: '600', CHANGE_LOG_RETENTION_SECONDS: '659' })).toThrow(/CHANGE_LOG_RETENTION_SECONDS must be at least MAX_STALENESS_SECONDS \+ 60/);
    expect(() => loadConfig({ KEY_CACHE_ENTRIES: '0' })).toThrow(ConfigError);
  });

  it('the default drain outlasts the documented HAProxy health check (inter × fall) with a margin', () => {
    const scaling = fs.readFileSync(path.join(import.meta.dirname, '../../docs/SCALING.md'), 'utf8');
    const check = /default-server[^\n]*\binter (\d+)(ms|s)\b[^\n]*\bfall (\d+)/.exec(scaling);
    expect(check, 'docs/SCALING.md: HAProxy default-server line').not.toBeNull();
    const detectMs = Number(check![1]) * (check![2] === 's' ? 1000 : 1) * Number(check![3]);
    expect(loadConfig({}).shutdownDelayMs).toBeGreaterThanOrEqual(detectMs + 1000);
  });

  it('every valid SHUTDOWN_DELAY_MS starts with the default timeout; the timeout fills the 9.5 s budget', () => {
    for (const delay of [0, 3000, 5000]) expect(loadConfig({ SHUTDOWN_DELAY_MS: String(delay) })).toMatchObject({ shutdownDelayMs: delay, shutdownTimeoutMs: 9500 - delay });
    expect(loadConfig({ SHUTDOWN_DELAY_MS: '3000', SHUTDOWN_TIMEOUT_MS: '6500' }).shutdownTimeoutMs).toBe(6500);
    expect(() => loadConfig({ SHUTDOWN_DELAY_MS: '3000', SHUTDOWN_TIMEOUT_MS: '6501' })).toThrow(/must not exceed 9500/);
  });

  it('every VARIABLE=value example of docs/OPERATIONS.md and README.md is a valid configuration as written', () => {
    const root = path.join(import.meta.dirname, '../..');
    const names = ENV_VARIABLES.join('|');
    let examples = 0;
    let shutdownExamples = 0;
    for (const file of ['docs/OPERATIONS.md', 'README.md']) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      for (const m of text.matchAll(new RegExp(`\`((?:(?:${names})=[^\\s\`<]+ ?)+)`, 'g'))) {
        const env = Object.fromEntries(m[1]!.trim().split(/\s+/).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
        if (Object.values(env).some((v) => /^[a-z]$/.test(v))) continue; // a placeholder (`WORKERS=n`), not an example
        expect(() => loadConfig(env), `${file}: ${m[1]}`).not.toThrow();
        examples++;
        if ('SHUTDOWN_DELAY_MS' in env) shutdownExamples++;
      }
    }
    expect(examples).toBeGreaterThan(0);
    expect(shutdownExamples, 'the SHUTDOWN_DELAY_MS examples of docs/OPERATIONS.md').toBeGreaterThan(0);
  });

  it('PUBLIC_BASE_URL: an http(s) URL, trailing slash dropped', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'http://127.0.0.1:4000/' }).publicBaseUrl).toBe('http://127.0.0.1:4000');
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'balancer:4000' })).toThrow(/PUBLIC_BASE_URL: must be an http/);
  });

  it('reports all problems together, including the shutdown budget', () => {
    let error: unknown;
    try {
      loadConfig({ LOG_FORMAT: 'xml', METRICS_TOKEN: 'short', SHUTDOWN_DELAY_MS: '5000', SHUTDOWN_TIMEOUT_MS: '9000', PORT: '-1' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['LOG_FORMAT', 'METRICS_TOKEN', 'SHUTDOWN_TIMEOUT_MS', 'PORT']) expect(problems).toContain(`${name}:`);
    expect(problems).toContain('must not exceed 9500');
  });
});

describe('scale-out configuration (contract §6)', () => {
  it('defaults: SQLite, per-process budgets, keep-alive above load-balancer idle timeouts', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ databaseUrl: null, redisUrl: null, keepAliveTimeoutMs: 65_000 });
  });

  it('accepts postgres and redis URLs and reports bad ones together', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', REDIS_URL: 'redis://127.0.0.1:6379' })).toMatchObject({
      databaseUrl: 'postgres://u:p@127.0.0.1:5432/db',
      redisUrl: 'redis://127.0.0.1:6379',
    });
    let error: unknown;
    try {
      loadConfig({ DATABASE_URL: 'mysql://x', REDIS_URL: 'http://x', KEEP_ALIVE_TIMEOUT_MS: '10' });
    } catch (err) {
      error = err;
    }
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'KEEP_ALIVE_TIMEOUT_MS']) expect(problems).toContain(`${name}:`);
  });

  it('MAX_STALENESS_SECONDS (default 300, 0 = refuse at once, at most a day) and MIGRATE_ON_START (default true)', () => {
    expect(loadConfig({})).toMatchObject({ maxStalenessSeconds: 300, migrateOnStart: true });
    expect(loadConfig({ MAX_STALENESS_SECONDS: '0', MIGRATE_ON_START: 'false' })).toMatchObject({ maxStalenessSeconds: 0, migrateOnStart: false });
    expect(loadConfig({ MAX_STALENESS_SECONDS: '86400', MIGRATE_ON_START: '1' })).toMatchObject({ maxStalenessSeconds: 86_400, migrateOnStart: true });
    let error: unknown;
    try {
      loadConfig({ MAX_STALENESS_SECONDS: '86401', MIGRATE_ON_START: 'no' });
    } catch (err) {
      error = err;
    }
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['MAX_STALENESS_SECONDS', 'MIGRATE_ON_START']) expect(problems).toContain(`${name}:`);
    expect(() => loadConfig({ MAX_STALENESS_SECONDS: '-1' })).toThrow(/MAX_STALENESS_SECONDS/);
  });

  it('contract §13: no OTLP endpoint (or OTEL_SDK_DISABLED=true) is tracing off; the OpenTelemetry variables and their defaults', () => {
    expect(loadConfig({}).tracing).toBeNull();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeNull();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }).tracing).toEqual({
      url: 'http://127.0.0.1:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'payment-gateway',
      resourceAttributes: {},
      sampler: 'parentbased_traceidratio',
      ratio: 0.05,
      batchDelayMs: 5000,
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example/otlp/traces',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=a%2Cb, x-team=pay',
        OTEL_SERVICE_NAME: 'gw-eu',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod',
        OTEL_TRACES_SAMPLER: 'always_on',
        OTEL_TRACES_SAMPLER_ARG: '1',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      }).tracing,
    ).toEqual({
      url: 'https://collector.example/otlp/traces',
      protocol: 'http/json',
      headers: { 'x-api-key': 'a,b', 'x-team': 'pay' },
      serviceName: 'gw-eu',
      resourceAttributes: { 'deployment.environment': 'prod' },
      sampler: 'always_on',
      ratio: 1,
      batchDelayMs: 200,
    });
  });

  it("contract §13: OpenTelemetry's general protocol and headers apply unless the traces variables say otherwise", () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=k1,x-team=pay' }).tracing).toMatchObject({
      protocol: 'http/json',
      headers: { 'x-api-key': 'k1', 'x-team': 'pay' },
    });
    expect(
      loadConfig({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=k1,x-team=pay', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-api-key=k2' }).tracing,
    ).toMatchObject({ protocol: 'http/protobuf', headers: { 'x-api-key': 'k2', 'x-team': 'pay' } });
    // The SDKs' usual default elsewhere is grpc: refused with the variable named, never sent as HTTP to a gRPC port.
    expect(() => loadConfig({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: must be http\/protobuf or http\/json/);
  });

  it('contract §13: every bad OpenTelemetry value stops the boot, each variable named', () => {
    let error: unknown;
    try {
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x=%zz',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_RESOURCE_ATTRIBUTES: 'bad=%zz',
        OTEL_TRACES_SAMPLER: 'jaeger_remote',
        OTEL_TRACES_SAMPLER_ARG: '1.5',
        OTEL_SDK_DISABLED: 'maybe',
        OTEL_BSP_SCHEDULE_DELAY: '0',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'OTEL_RESOURCE_ATTRIBUTES', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG', 'OTEL_SDK_DISABLED', 'OTEL_BSP_SCHEDULE_DELAY']) {
      expect(problems).toContain(`${name}:`);
    }
  });
});
