/**
 * Payment instructions (contract §14): how a customer pays with a channel once they hold a pay code, per
 * language. Pure rules: what an operator may store (validation), and the text a request reads (placeholders
 * filled, amounts and times written in the language).
 *
 * Invariants:
 * - stored instructions are plain text: no markup characters, only the four known placeholders, at most
 *   {@link MAX_SECTIONS} sections of at most {@link MAX_STEPS} steps of at most {@link MAX_STEP_LENGTH}
 *   characters; everything the catalogue serves passed {@link parseInstructionSet};
 * - rendering never throws for stored text: a placeholder without a value stays as written and is listed in
 *   `unfilled`; a value never reintroduces a placeholder (values are substituted in one pass).
 */
import type { Locale } from '../../../shared/vocabulary.js';

/** The placeholders a step may hold, in the order `unfilled` lists them. */
export const PLACEHOLDERS = ['pay_code', 'amount', 'merchant_name', 'expires_at'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

export const MAX_SECTIONS = 8;
export const MAX_STEPS = 15;
export const MAX_STEP_LENGTH = 300;
export const MAX_TITLE_LENGTH = 80;
/** A section key: lower-case words joined by `_` (`atm`, `mobile_banking`, …). */
const KEY = /^[a-z][a-z0-9_]{0,31}$/;
/** Characters that would be markup somewhere a step is shown (HTML, Markdown links/emphasis are harmless text). */
const MARKUP = /[<>]/;
const PLACEHOLDER_ANYWHERE = /\{\{\s*([^{}]*?)\s*\}\}/g;
/** Any brace left once known placeholders are removed: a misspelt or half-written placeholder. */
const STRAY_BRACE = /[{}]/;
/** Control characters other than none: a step is one line. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** One section: where or how to pay (`atm`, `mobile_banking`, `counter`, …), its title and ordered steps. */
export interface InstructionSection {
  key: string;
  title: string;
  steps: readonly string[];
}

/** The instructions of one channel in one language (validated; shared read-only). */
export type InstructionSet = readonly InstructionSection[];

/** A channel's instructions in each language (null: none stored in that language). */
export type ChannelInstructions = Readonly<Record<Locale, InstructionSet | null>>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** Validate an operator's instructions (the JSON of one language: an array of sections, or `{ "sections": [...] }`). */
export function parseInstructionSet(input: unknown): Parsed<InstructionSet> {
  const problems: string[] = [];
  const sections = Array.isArray(input) ? input : input !== null && typeof input === 'object' && Array.isArray((input as { sections?: unknown }).sections) ? (input as { sections: unknown[] }).sections : null;
  if (sections === null) return { ok: false, problems: ['instructions must be a JSON array of sections (or an object with "sections")'] };
  if (sections.length === 0) problems.push('at least one section is required');
  if (sections.length > MAX_SECTIONS) problems.push(`at most ${MAX_SECTIONS} sections (got ${sections.length})`);
  const out: InstructionSection[] = [];
  const keys = new Set<string>();
  for (const [i, s] of sections.slice(0, MAX_SECTIONS).entries()) {
    const at = `sections[${i}]`;
    if (s === null || typeof s !== 'object' || Array.isArray(s)) {
      problems.push(`${at} must be an object with key, title and steps`);
      continue;
    }
    const { key, title, steps } = s as Record<string, unknown>;
    if (typeof key !== 'string' || !KEY.test(key)) problems.push(`${at}.key must be lower-case letters, digits and _ (e.g. "atm"), at most 32 characters`);
    else if (keys.has(key)) problems.push(`${at}.key "${key}" is used twice`);
    else keys.add(key);
    if (typeof title !== 'string' || title.trim() === '' || title.length > MAX_TITLE_LENGTH) problems.push(`${at}.title must be 1–${MAX_TITLE_LENGTH} characters`);
    else problems.push(...textProblems(`${at}.title`, title, false));
    if (!Array.isArray(steps) || steps.length === 0 || steps.length > MAX_STEPS) {
      problems.push(`${at}.steps must be 1–${MAX_STEPS} steps`);
      continue;
    }
    for (const [j, step] of steps.entries()) {
      if (typeof step !== 'string' || step.trim() === '' || step.length > MAX_STEP_LENGTH) problems.push(`${at}.steps[${j}] must be 1–${MAX_STEP_LENGTH} characters of text`);
      else problems.push(...textProblems(`${at}.steps[${j}]`, step, true));
    }
    if (typeof key === 'string' && typeof title === 'string' && Array.isArray(steps)) out.push({ key, title: title.trim(), steps: steps.map((x) => String(x).trim()) });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: out };
}

function textProblems(at: string, text: string, placeholdersAllowed: boolean): string[] {
  const problems: string[] = [];
  if (MARKUP.test(text)) problems.push(`${at} holds markup (< or >): instructions are plain text`);
  if (CONTROL.test(text)) problems.push(`${at} holds a control character (a step is one line)`);
  for (const m of text.matchAll(PLACEHOLDER_ANYWHERE)) {
    if (!placeholdersAllowed) problems.push(`${at} may not hold a placeholder`);
    else if (!(PLACEHOLDERS as readonly string[]).includes(m[1]!)) problems.push(`${at}: unknown placeholder {{${m[1]}}} (known: ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(' ')})`);
  }
  if (STRAY_BRACE.test(text.replace(PLACEHOLDER_ANYWHERE, ''))) problems.push(`${at} holds a brace outside a placeholder`);
  return problems;
}

/** The stored text of a validated set (what the admin service writes). */
export function serialiseInstructionSet(set: InstructionSet): string {
  return JSON.stringify(set.map((s) => ({ key: s.key, title: s.title, steps: s.steps })));
}

/**
 * A stored column's instructions: null for none. Text that does not validate (written by hand past the admin
 * service) is served as none rather than as unchecked text: `problems` says why, for the catalogue to report.
 */
export function instructionSetFromColumn(text: string | null): { set: InstructionSet | null; problems?: string[] } {
  if (text === null) return { set: null };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { set: null, problems: ['not JSON'] };
  }
  const parsed = parseInstructionSet(json);
  return parsed.ok ? { set: parsed.value } : { set: null, problems: parsed.problems };
}

/** The values a request gives for the placeholders, already written in the language (see the formatters below). */
export type PlaceholderValues = Partial<Record<Placeholder, string>>;

/** Instructions as a request reads them. */
export interface RenderedInstructions {
  sections: InstructionSection[];
  /** Placeholders the text holds that the request gave no value for, in {@link PLACEHOLDERS} order. */
  unfilled: Placeholder[];
}

/** Fill the placeholders of a set with `values`; those without a value stay as written and are listed. */
export function renderInstructionSet(set: InstructionSet | null, values: PlaceholderValues): RenderedInstructions {
  const missing = new Set<Placeholder>();
  const fill = (text: string): string =>
    text.replace(PLACEHOLDER_ANYWHERE, (whole, name: string) => {
      const value = values[name as Placeholder];
      if (value !== undefined) return value;
      missing.add(name as Placeholder);
      return whole;
    });
  const sections = (set ?? []).map((s) => ({ key: s.key, title: s.title, steps: s.steps.map(fill) }));
  return { sections, unfilled: PLACEHOLDERS.filter((p) => missing.has(p)) };
}

/** A pay code as §14 allows it: 1–64 characters of `[A-Za-z0-9-]`. */
export const PAY_CODE = /^[A-Za-z0-9-]{1,64}$/;

/**
 * An IANA zone name as written (`Asia/Jakarta`, `UTC`, `America/Argentina/Buenos_Aires`): letters, digits,
 * `_`, `-`, `+` in `/`-separated parts, at most 64 characters. Offsets such as `+07:00`, which Intl also
 * accepts, are not zone names.
 */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,3}$/;

/** The default zone of times in instructions (contract §14): Western Indonesian Time. */
export const DEFAULT_TIME_ZONE = 'Asia/Jakarta';

/** Date formatters kept at most (one per language and zone asked for; zones are a closed set of about 420). */
export const MAX_TIME_FORMATTERS = 128;
const timeFormatters = new Map<string, Intl.DateTimeFormat>();

/** True when `zone` is an IANA time zone name this runtime knows. */
export function isIanaZone(zone: string): boolean {
  if (zone.length > 64 || !ZONE_NAME.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch (err) {
    // Intl's only refusal of a well-formed name: RangeError "Invalid time zone specified".
    if (err instanceof RangeError) return false;
    throw err;
  }
}

/** An instant (epoch ms) written for a reader of `locale` in `zone` (already checked by {@link isIanaZone}): "27 November 2026 pukul 18.41 WIB". */
export function formatInstantFor(ms: number, locale: Locale, zone: string): string {
  const key = `${locale}\u0000${zone}`;
  let f = timeFormatters.get(key);
  if (f === undefined) {
    f = new Intl.DateTimeFormat(locale === 'id' ? 'id-ID' : 'en-US', { timeZone: zone, day: 'numeric', month: 'long', year: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
    if (timeFormatters.size >= MAX_TIME_FORMATTERS) timeFormatters.delete(timeFormatters.keys().next().value!);
    timeFormatters.set(key, f);
  }
  return f.format(ms);
}

/**
 * An amount (canonical decimal text, exact) written for a reader of `locale`. Rupiah is written the Indonesian
 * way in both languages, `Rp 150.000`, as the checkout component and Indonesian banks write it (Intl's `en-ID`
 * does the same); other currencies by their code, grouped for the language (`USD 1,234.50` in en, `USD 1.234,50`
 * in id). Digits are grouped from the text itself, never through a binary float.
 */
export function formatAmountFor(amount: string, currency: string, minorUnits: number, locale: Locale): string {
  const negative = amount.startsWith('-');
  const [whole, given] = (negative ? amount.slice(1) : amount).split('.') as [string, string | undefined];
  // Canonical text drops trailing zeros (`12.5`); a reader expects the currency's decimals (`12.50`).
  const fraction = minorUnits > 0 || given ? (given ?? '').padEnd(minorUnits, '0') : '';
  const indonesian = locale === 'id' || currency === 'IDR';
  const group = indonesian ? '.' : ',';
  const decimal = indonesian ? ',' : '.';
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  const number = `${negative ? '-' : ''}${grouped}${fraction ? decimal + fraction : ''}`;
  return `${currency === 'IDR' ? 'Rp' : currency} ${number}`;
}
