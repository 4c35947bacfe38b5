/** Allowed web origins (contract §9): what normalizeOrigin stores, and what it refuses with a reason. */
import { describe, expect, it } from 'vitest';
import { normalizeOrigin } from '../../src/modules/sessions/domain/origins.js';

describe('normalizeOrigin', () => {
  it.each([
    ['https://Shop.Example:443', 'https://shop.example'],
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

  it('takes an international host only as the punycode typed, and gives its Unicode form to confirm', () => {
    expect(normalizeOrigin('https://xn--pfel-koa.de')).toEqual({ ok: true, origin: 'https://xn--pfel-koa.de', unicode: 'https://äpfel.de' });
    // A Cyrillic look-alike of apple.com, typed as punycode: allowed as typed, its Unicode form shown.
    expect(normalizeOrigin('https://xn--pple-43d.com:8443')).toEqual({ ok: true, origin: 'https://xn--pple-43d.com:8443', unicode: 'https://\u0430pple.com:8443' });
  });

  it.each([
    ['https://\u0430pple.com', /contains U\+0430: an origin is printable ASCII only.*URL would read it as https:\/\/xn--pple-43d\.com/],
    ['https://ÄPFEL.de', /contains U\+00C4.*allowed only as the punycode \(xn--…\) you type/],
    ['https://\uff53hop.example', /contains U\+FF53/],
    ['https://shop.exa\tmple', /contains U\+0009/],
    ['https://shop.example\t', /contains U\+0009/],
    ['https://shop.example\n', /contains U\+000A/],
    ['https://shop.example\u001b[31m', /contains U\+001B/],
    ['https://shop.example\u0085', /contains U\+0085/],
    ['https://shop.ex\u202eample', /contains U\+202E/],
    ['https://shop .example', /contains U\+0020/],
    ['https://evil.example\\@shop.example', /contains a backslash/],
    ['https://shop.example\\', /contains a backslash/],
    ['https://shop.example:0', /port 0/],
    ['https://sh%6Fp.example', /percent-escape/],
    ['https://0x7f.1', /reads its host as "127\.0\.0\.1", not as typed/],
    ['https://2130706433', /reads its host as "127\.0\.0\.1", not as typed/],
    ['https://0177.0.0.1', /reads its host as "127\.0\.0\.1", not as typed/],
    ['https://[0:0::1]', /reads its host as "\[::1\]", not as typed/],
    ['https://shop.example:0443', /not as typed/],
  ])('refuses %j: it is not taken as typed', (text, problem) => {
    const check = normalizeOrigin(text);
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.problem).toMatch(problem);
      // The message itself carries nothing unprintable to the operator's terminal.
      expect(check.problem).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    }
  });

  it('still drops the surrounding spaces of a pasted line, a default port and the host case', () => {
    expect(normalizeOrigin('  https://SHOP.example:443  ')).toEqual({ ok: true, origin: 'https://shop.example' });
  });
});
