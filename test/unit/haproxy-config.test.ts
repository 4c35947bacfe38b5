/**
 * The HAProxy configuration (scripts/lib/haproxy.ts): docs/SCALING.md carries exactly the generator's
 * production example; HAProxy (Debian package) accepts it; the settings the drain and the retries rely on
 * are there; and with no replica up HAProxy answers like the gateway (problem details, Retry-After).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { NOT_A_PAGE_POLICY } from '../../src/shared/security-headers.js';
import { afterAll, describe, expect, it } from 'vitest';
import { HEALTH_CHECK, haproxyBinary, haproxyConfig, productionExample } from '../../scripts/lib/haproxy.js';
import { loadConfig } from '../../src/shared/config.js';
import { makeTempDir } from '../helpers/app.js';
import { freePort, localServicesSkipReason, startHaproxy } from '../helpers/local-services.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const skip = localServicesSkipReason('haproxy');
let balancer: Awaited<ReturnType<typeof startHaproxy>> | undefined;
let workDir: string | undefined;

afterAll(async () => {
  await balancer?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

describe('HAProxy configuration', () => {
  it('docs/SCALING.md carries the generator\'s production configuration, unchanged', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs/SCALING.md'), 'utf8');
    const m = /<!-- haproxy\.cfg: productionExample\(\) of scripts\/lib\/haproxy\.ts -->\n```haproxy\n([\s\S]*?)```/.exec(doc);
    expect(m, 'the marked haproxy block in docs/SCALING.md').not.toBeNull();
    expect(m![1]).toBe(productionExample());
  });

  it('health check on /ready, retries on another replica, drain shorter than the server\'s default delay', () => {
    const cfg = haproxyConfig({ bind: '127.0.0.1:1', log: 'stderr', servers: [{ name: 'a', address: '127.0.0.1:2' }] });
    expect(cfg).toMatch(/^\s+option httpchk GET \/ready$/m);
    expect(cfg).toMatch(/^\s+http-check expect status 200$/m);
    expect(cfg).toMatch(/^\s+retry-on conn-failure empty-response response-timeout$/m);
    expect(cfg).toMatch(/^\s+option redispatch 1$/m);
    expect(cfg).toMatch(/^\s+server a 127\.0\.0\.1:2$/m);
    // Contract §6: the replicas learn each client's address from the header HAProxy appends (in the frontend).
    expect(/frontend gateway\n[\s\S]*?^\s+option forwardfor$[\s\S]*?^backend /m.test(cfg)).toBe(true);
    // A SIGTERM'd replica must still serve until HAProxy has taken it out (inter × fall), with a margin.
    expect(loadConfig({}).shutdownDelayMs).toBeGreaterThanOrEqual(HEALTH_CHECK.interMs * HEALTH_CHECK.fall + 1000);
    // HAProxy's idle connections and inactivity timeouts stay below the replicas' keep-alive.
    const seconds = (name: string) => Number(new RegExp(`^\\s+timeout ${name} (\\d+)s$`, 'm').exec(cfg)![1]) * 1000;
    for (const name of ['server', 'client', 'http-keep-alive']) expect(seconds(name), name).toBeLessThan(loadConfig({}).keepAliveTimeoutMs);
    // Event streams get a heartbeat every 15 s: inactivity timeouts must leave room for two of them.
    expect(seconds('server')).toBeGreaterThan(2 * 15_000);
    expect(seconds('client')).toBeGreaterThan(2 * 15_000);
  });

  it('sized for long-lived streams: maxconn holds every replica\'s MAX_OPEN_STREAMS plus headroom; leastconn', () => {
    const three = haproxyConfig({ bind: ':80', log: 'stderr', servers: [1, 2, 3].map((i) => ({ name: `r${i}`, address: `10.0.0.${i}:4000` })) });
    const maxconn = Number(/^\s+maxconn (\d+)$/m.exec(three)![1]);
    expect(maxconn).toBeGreaterThan(3 * loadConfig({}).maxOpenStreams);
    expect(three).toMatch(/^\s+balance leastconn$/m);
    expect(haproxyConfig({ bind: ':80', log: 'stderr', servers: [], maxconn: 9000 })).toMatch(/^\s+maxconn 9000$/m);
  });

  it.skipIf(skip)('haproxy -c accepts the production example', () => {
    workDir = makeTempDir('pgw-haproxy-cfg-');
    const file = path.join(workDir, 'haproxy.cfg');
    // /dev/log may be absent here; the check is about the syntax, so log to stderr.
    fs.writeFileSync(file, productionExample().replace('log /dev/log ', 'log stderr '));
    const res = spawnSync(haproxyBinary()!, ['-c', '-f', file], { encoding: 'utf8' });
    expect(res.status, res.stdout + res.stderr).toBe(0);
  });

  it.skipIf(skip)('no replica up: 503 problem details with Retry-After, not HAProxy\'s HTML page', async () => {
    const dead = await freePort(); // nothing listens there
    balancer = await startHaproxy({ servers: [{ name: 'gone', address: `127.0.0.1:${dead}` }] });
    expect(fs.readFileSync(balancer.configFile, 'utf8')).toBe(balancer.config);
    // Until the first checks fail the server counts as up: HAProxy then retries, fails, and answers 503.
    let res: Response | undefined;
    for (let i = 0; i < 100; i++) {
      res = await fetch(`${balancer.url}/v1/payments/channel`);
      if (res.status === 503) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(res!.status).toBe(503);
    expect(res!.headers.get('content-type')).toBe('application/problem+json');
    expect(res!.headers.get('retry-after')).toBe('1');
    // Like every answer of the gateway: never sniffed, never framed, nothing runs (src/shared/security-headers.ts).
    expect(res!.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res!.headers.get('x-frame-options')).toBe('DENY');
    expect(res!.headers.get('content-security-policy')).toBe(NOT_A_PAGE_POLICY);
    expect(await res!.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    const dir = balancer.dir;
    await balancer.stop();
    expect(fs.existsSync(dir)).toBe(false);
    expect(await fetch(balancer.url).then(() => 'answered', () => 'refused')).toBe('refused');
  }, 30_000);
});
