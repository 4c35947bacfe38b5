/** Allowed web origins (contract §9): what normalizeOrigin stores, and what it refuses with a reason. */
import { describe, expect, it } from 'vitest';
import { normalizeOrigin } from '../../src/modules/sessions/domain/origins.js';

describe('normalizeOrigin', () => {
  it.each([
    ['https://Shop.Example:443', 'https://shop.example'],
    ['https://ÄPFEL.de', 'https://xn--pfel-koa.de'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
    ['https://my_shop.example.com/', 'https://my_shop.example.com'],
  ])('stores %s as %s (what a browser sends)', (text, origin) => {
    expect(normalizeOrigin(text)).toEqual({ ok: true, origin });
  });

  it.each(['https://*.example.com', 'https://shop.*', 'https://*', 'https://*.example.com:8443'])('refuses the wildcard %s, saying origins are matched exactly', (text) => {
    const check = normalizeOrigin(text);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.problem).toMatch(/wildcards are not supported; an origin is matched exactly/);
  });

  it.each(['https://a$b.example', 'https://a..b', 'https://shop!.example'])('refuses %s: not a host a browser could send', (text) => {
    const check = normalizeOrigin(text);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.problem).toMatch(/is not a host name or IP address|not a valid URL origin/);
  });
});
