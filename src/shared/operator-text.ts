/**
 * Operator text is taken as typed or refused, and printed so that it cannot act on a terminal.
 *
 * What an operator stores (channel and merchant names, translated names, the audit actor) is shown later
 * to other operators (`channel list`, `audit list`) and to shoppers (channel names on the checkout page).
 * A control character (C0 and C1: ESC starts the terminal sequences that recolour, retitle or hide text),
 * a bidirectional override or isolate (U+202A–202E, U+2066–2069: text that reads differently than it is
 * stored) or any other format character (Unicode category Cf: invisible joiners, BOM), a line or
 * paragraph separator or a lone surrogate is refused with the character named, never stored.
 *
 * Output: a database written before this rule (or by hand) may still hold such characters, so the admin
 * CLI writes everything through {@link escapeUnprintable}: each one shown as `\uXXXX`.
 */

/** Characters refused in operator text and escaped on output: Cc, Cf, Zl, Zp, Cs. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const UNPRINTABLE_ALL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
/** The same but keeping the line feed (the CLI's own line ends). */
const UNPRINTABLE_BUT_NEWLINE = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** `U+001B` for a character (a lone surrogate included). */
export function codePointName(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** What kind of character it is, for the operator's message. */
function kindOf(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp === 0x1b) return 'escape, which starts terminal control sequences';
  if (cp === 0x09) return 'a tab';
  if (cp === 0x0a || cp === 0x0d) return 'a line break';
  if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp <= 0x9f)) return 'a control character';
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp === 0x200e || cp === 0x200f || cp === 0x061c) return 'a bidirectional control, which makes text read differently than it is stored';
  if (cp === 0x2028 || cp === 0x2029) return 'a line separator';
  if (cp >= 0xd800 && cp <= 0xdfff) return 'a lone surrogate';
  return 'an invisible format character';
}

/**
 * Why `text` may not be stored as operator text, or null when it may: the first refused character, by code
 * point and kind ("contains U+202E (a bidirectional control, …)").
 */
export function unprintableProblem(text: string): string | null {
  const found = UNPRINTABLE.exec(text);
  if (found === null) return null;
  return `contains ${codePointName(found[0])} (${kindOf(found[0])}); type it without control or format characters`;
}

/** `\uXXXX` for a UTF-16 unit. */
function escapeUnit(ch: string): string {
  let out = '';
  for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** Text for a terminal: every refused character shown as `\uXXXX`; line feeds kept when `keepNewlines`. */
export function escapeUnprintable(text: string, keepNewlines = false): string {
  return text.replace(keepNewlines ? UNPRINTABLE_BUT_NEWLINE : UNPRINTABLE_ALL, escapeUnit);
}
