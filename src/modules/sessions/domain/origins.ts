/**
 * Allowed web origins of a merchant (contract §9): validation and normalisation, pure.
 *
 * A browser's `Origin` header is `scheme://host[:port]` with a lower-case host and no default port, so an
 * origin is stored in exactly that form and compared as a string. Only `https` is accepted, and `http`
 * for loopback development hosts (`localhost`, `127.0.0.1`) or when the operator says so explicitly: a
 * session used from plain-http page can be read and altered on the network.
 */

/** Longest origin accepted (an origin is short; this bounds what an operator can store). */
export const MAX_ORIGIN_LENGTH = 255;

/** A host as URL normalises it: DNS labels (underscores occur in real names), IPv4, or a bracketed IPv6 literal. */
const HOST = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])$/;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export type OriginCheck = { ok: true; origin: string } | { ok: false; problem: string };

/** The normalised origin of `text`, or why it is not an acceptable origin. */
export function normalizeOrigin(text: string, options: { allowInsecureHttp?: boolean } = {}): OriginCheck {
  const raw = text.trim();
  if (raw === '' || raw.length > MAX_ORIGIN_LENGTH) return { ok: false, problem: `an origin is 1 to ${MAX_ORIGIN_LENGTH} characters, e.g. https://shop.example` };
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/.exec(raw);
  if (!match) return { ok: false, problem: `"${raw}" is not an origin: write scheme://host[:port], e.g. https://shop.example` };
  const [, , authority, rest] = match;
  if (rest !== '' && rest !== '/') return { ok: false, problem: `"${raw}" has a path, query or fragment: an origin is scheme://host[:port] only` };
  if (authority!.includes('@')) return { ok: false, problem: `"${raw}" has user information: an origin is scheme://host[:port] only` };
  // URL accepts `*` in a host, and the origin would then be stored and compared literally: it would match no
  // browser (an Origin header never holds a pattern) while the operator believes every subdomain is allowed.
  if (authority!.includes('*')) {
    return { ok: false, problem: `"${raw}": wildcards are not supported; an origin is matched exactly, so add each one (e.g. https://shop.example.com, https://www.example.com)` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: `"${raw}" is not a valid URL origin` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, problem: `"${raw}": the scheme must be https (or http for local development)` };
  if (url.hostname === '') return { ok: false, problem: `"${raw}" has no host` };
  // Anything a browser could not send as a host (after URL's lower-casing and punycode) would never match.
  if (!HOST.test(url.hostname)) return { ok: false, problem: `"${raw}": "${url.hostname}" is not a host name or IP address` };
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname) && !options.allowInsecureHttp) {
    return { ok: false, problem: `"${raw}": http is allowed only for localhost and 127.0.0.1; use https, or pass --allow-insecure-http` };
  }
  // URL lower-cases the host, drops the default port and punycodes international names: what browsers send.
  return { ok: true, origin: url.origin };
}
