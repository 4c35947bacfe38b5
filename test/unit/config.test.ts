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
    expect(c).toMatchObject({ logFormat: 'auto', metricsToken: null, shutdownDelayMs: 0, shutdownTimeoutMs: 8000 });
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
