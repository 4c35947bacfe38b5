/**
 * Public channel images at `/images/channels/<code>.svg` (the channels'
 * `image_url`): generated SVG badges, so nothing is fetched from elsewhere.
 */
import { createHash } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../shared/errors.js';
import { requestStateOf } from '../request-state.js';
import { problemResponse } from '../responses.js';
import { IMAGE_PREFIX } from '../../shared/routes.js';


/** Options of {@link useChannelImages}. */
export interface ChannelImagesOptions {
  /** Display name of a catalogue channel by code, or undefined when there is none. */
  channelName: (code: string) => string | undefined;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A deterministic badge: the channel name on a colour derived from its code. */
export function renderBadge(code: string, name: string): string {
  const hue = createHash('sha256').update(code).digest()[0]! * (360 / 256);
  const label = escapeXml(name.length > 18 ? `${name.slice(0, 17)}…` : name);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="64" viewBox="0 0 160 64" role="img" aria-label="${label}">
<rect width="160" height="64" rx="10" fill="hsl(${hue.toFixed(0)},55%,38%)"/>
<text x="80" y="38" font-family="Helvetica,Arial,sans-serif" font-size="15" font-weight="700" fill="#fff" text-anchor="middle">${label}</text>
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
        new fetchAPI.Response(request.method === 'HEAD' ? null : renderBadge(match[1]!, name), {
          status: 200,
          headers: { 'Content-Type': 'image/svg+xml; charset=utf-8', 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' },
        }),
      );
    },
  };
}
