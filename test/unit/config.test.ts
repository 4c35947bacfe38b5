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
});
