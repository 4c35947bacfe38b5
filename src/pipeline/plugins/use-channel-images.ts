/**
 * Public channel images at `/images/channels/<code>.svg` (the channels'
 * `image_url`): generated SVG badges, so nothing is fetched from elsewhere.
 */
import { createHash } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../shared/errors.js';
import { requestStateOf } from '../request-state.js';
import { getOrHeadAnswer, problemResponse } from '../responses.js';
import { IMAGE_PREFIX } from '../../shared/routes.js';


/** Options of {@link useChannelImages}. */
export interface ChannelImagesOptions {
  /** Display name of a catalogue channel by code, or undefined when there is none. */
  channelName: (code: string) => string | undefined;
  /**
   * True when the channel's name differs by language (contract §12: "Kartu Kredit" / "Credit Card"): its
   * badge, one image for every page, then draws a symbol instead of words of one language. Default: never.
   */
  nameDiffersByLanguage?: (code: string) => boolean;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Widest text line of a badge, in SVG units (the badge is 160 wide; 8 on each side). */
const BADGE_TEXT_WIDTH = 144;
/** Average glyph width of bold Helvetica/Arial as a share of the font size (generous, so text never overflows). */
const GLYPH_WIDTH = 0.62;

/** What a badge writes: the name, with "Virtual Account" shortened to "VA" as Indonesian checkouts do. */
export function badgeLabel(name: string): string {
  return name.replace(/\s+Virtual Account$/i, ' VA');
}

/** The name in at most two lines, split at the space that balances them best (one line when it is one word). */
function badgeLines(name: string): string[] {
  const words = name.split(/\s+/).filter(Boolean);
  if (words.length < 2 || name.length <= 10) return [name];
  let best = [name];
  let bestWidth = name.length;
  for (let i = 1; i < words.length; i++) {
    const lines = [words.slice(0, i).join(' '), words.slice(i).join(' ')];
    const width = Math.max(lines[0]!.length, lines[1]!.length);
    if (width < bestWidth) [best, bestWidth] = [lines, width];
  }
  return best;
}

/**
 * A deterministic badge: the whole channel name (never cut: long names take two lines and a smaller font,
 * sized so the widest line fits) on a colour derived from its code.
 */
export function renderBadge(code: string, name: string, options: { symbol?: boolean } = {}): string {
  const hue = createHash('sha256').update(code).digest()[0]! * (360 / 256);
  if (options.symbol) {
    // A card outline with its stripe and chip: the same on an Indonesian and an English page.
    return `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="64" viewBox="0 0 160 64" role="img" aria-label="${escapeXml(name)}">
<rect width="160" height="64" rx="10" fill="hsl(${hue.toFixed(0)},55%,38%)"/>
<rect x="50" y="11" width="60" height="42" rx="6" fill="none" stroke="#fff" stroke-width="4"/>
<rect x="50" y="20" width="60" height="8" fill="#fff"/>
<rect x="58" y="36" width="14" height="9" rx="2" fill="#fff"/>
</svg>
`;
  }
  // The bank is the mark ("BCA VA"): the full name is written beside the badge, and a shorter label draws larger.
  const lines = badgeLines(badgeLabel(name));
  const longest = Math.max(...lines.map((l) => [...l].length));
  const size = Math.max(8, Math.min(lines.length === 1 ? 26 : 21, Math.floor(BADGE_TEXT_WIDTH / (longest * GLYPH_WIDTH))));
  const first = lines.length === 1 ? 32 + size * 0.36 : 32 - size * 0.18;
  const text = lines
    .map((line, i) => {
      // Below the smallest legible size a line is squeezed to the badge's width instead (SVG textLength): still whole.
      const squeeze = [...line].length * size * GLYPH_WIDTH > BADGE_TEXT_WIDTH ? ` textLength="${BADGE_TEXT_WIDTH}" lengthAdjust="spacingAndGlyphs"` : '';
      return `<text x="80" y="${(first + i * size * 1.1).toFixed(1)}" font-family="Helvetica,Arial,sans-serif" font-size="${size}" font-weight="700" fill="#fff" text-anchor="middle"${squeeze}>${escapeXml(line)}</text>`;
    })
    .join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="64" viewBox="0 0 160 64" role="img" aria-label="${escapeXml(name)}">
<rect width="160" height="64" rx="10" fill="hsl(${hue.toFixed(0)},55%,38%)"/>
${text}
</svg>
`;
}

const CODE_FILE = /^([a-z0-9_-]{1,64})\.svg$/;

export function useChannelImages(options: ChannelImagesOptions): Plugin {
  return {
    onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith(IMAGE_PREFIX)) return;
      const state = requestStateOf(serverContext);
      const requestId = state?.id ?? '';
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(problemResponse(fetchAPI.Response, new AppError('METHOD_NOT_ALLOWED', 'Images accept GET only.', {}, { Allow: 'GET, HEAD' }), requestId));
        return;
      }
      const match = CODE_FILE.exec(url.pathname.slice(IMAGE_PREFIX.length));
      let name: string | undefined;
      try {
        name = match ? options.channelName(match[1]!) : undefined;
      } catch (err) {
        if (state) state.unexpected = err;
        endResponse(problemResponse(fetchAPI.Response, new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry later.'), requestId));
        return;
      }
      if (!match || name === undefined) {
        endResponse(problemResponse(fetchAPI.Response, new AppError('NOT_FOUND', `No image ${url.pathname}.`), requestId));
        return;
      }
      endResponse(
        getOrHeadAnswer(fetchAPI.Response, request.method, renderBadge(match[1]!, name, { symbol: options.nameDiffersByLanguage?.(match[1]!) === true }), {
          status: 200,
          headers: { 'Content-Type': 'image/svg+xml; charset=utf-8', 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' },
        }),
      );
    },
  };
}
