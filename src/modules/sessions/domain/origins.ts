/**
 * Allowed web origins of a merchant (contract §9): validation and normalisation, pure.
 *
 * A browser's `Origin` header is `scheme://host[:port]` with a lower-case host and no default port, so an
 * origin is stored in exactly that form and compared as a string. Only `https` is accepted, and `http`
 * for loopback development hosts (`localhost`, `127.0.0.1`) or when the operator says so explicitly: a
 * session used from plain-http page can be read and altered on the network.
 *
 * Taken as typed or refused: WHATWG URL parsing rewrites what it reads in silence (it drops tabs and line
 * breaks, reads a backslash as a slash, decodes percent-escapes in a host, reads `0x7f.1` and `2130706433` as
 * IPv4 addresses, maps a Unicode host to punycode). An operator who typed a look-alike host (Cyrillic `а`
 * for Latin `a`) would have allowed a stranger's site without seeing it. So the origin's text must be what
 * URL keeps: printable ASCII, no backslash, a host URL reads back unchanged (only its case and a default
 * port may differ), a port from 1. An international host is accepted only as the punycode the operator
 * types (`xn--…`), and its Unicode form is returned for the operator to confirm (`unicode`).
 */
import { domainToUnicode } from 'node:url';

/** Longest origin accepted (an origin is short; this bounds what an operator can store). */
export const MAX_ORIGIN_LENGTH = 255;

/** A host as URL normalises it: DNS labels (underscores occur in real names), IPv4, or a bracketed IPv6 literal. */
const HOST = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])$/;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A normalised origin, with its host's Unicode form when it has punycode labels (for the operator to confirm). */
export type OriginCheck = { ok: true; origin: string; unicode?: string } | { ok: false; problem: string };

/** The first character of `text` that is not printable ASCII, as `U+XXXX`, or null. */
function firstNonPrintableAscii(text: string): string | null {
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x21 || cp > 0x7e) return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return null;
}

/** The normalised origin of `text`, or why it is not an acceptable origin. */
export function normalizeOrigin(text: string, options: { allowInsecureHttp?: boolean } = {}): OriginCheck {
  // Only surrounding spaces are dropped (a pasted line); every other character is judged as typed.
  const raw = text.replace(/^ +| +$/g, '');
  const bad = firstNonPrintableAscii(raw);
  if (bad !== null) {
    let hint = '';
    if (!/[\p{Cc}\p{Cf}\p{Z}]/u.test(raw)) {
      // A Unicode host: say what its punycode is, so an operator who means it can type that.
      try {
        hint = `; URL would read it as ${new URL(raw).origin}: an international host is allowed only as the punycode (xn--…) you type, after checking it is the host you mean`;
      } catch {
        hint = '';
      }
    }
    return { ok: false, problem: `"${escapeText(raw)}" contains ${bad}: an origin is printable ASCII only (no spaces, tabs or control characters)${hint}` };
  }
  if (raw.includes('\\')) return { ok: false, problem: `"${raw}" contains a backslash: URL parsing would read it as "/"; an origin is scheme://host[:port]` };
  if (raw.includes('%')) return { ok: false, problem: `"${raw}" contains a percent-escape: an origin's host is typed as it is, without escapes` };
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
  if (url.port === '0') return { ok: false, problem: `"${raw}": port 0 is not a port a page can be served from` };
  // What URL read must be what was typed, but for the host's case and a default port (:443 for https).
  const typed = authority!.toLowerCase();
  const defaultPort = url.protocol === 'https:' ? ':443' : ':80';
  if (url.host !== typed && !(url.port === '' && `${url.host}${defaultPort}` === typed)) {
    return { ok: false, problem: `"${raw}": URL parsing reads its host as "${url.host}", not as typed; type the origin as browsers send it (e.g. https://${url.host})` };
  }
  // URL lower-cases the host and drops the default port: what browsers send.
  const punycode = url.hostname.split('.').some((label) => label.startsWith('xn--'));
  const unicodeHost = punycode ? domainToUnicode(url.hostname) : '';
  if (punycode && unicodeHost === '') return { ok: false, problem: `"${raw}": "${url.hostname}" is not valid punycode` };
  if (unicodeHost === '' || unicodeHost === url.hostname) return { ok: true, origin: url.origin };
  return { ok: true, origin: url.origin, unicode: `${url.protocol}//${unicodeHost}${url.port === '' ? '' : `:${url.port}`}` };
}

/** Operator text inside a message: anything unprintable as `\uXXXX` (the message goes to a terminal). */
function escapeText(text: string): string {
  return text.replace(/[^\x20-\x7e]/gu, (ch) => {
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}
