/**
 * The browser-facing security headers of every answer, as values. Which answer gets which is decided in one
 * place, the `securityHeaders` plugin (src/pipeline/plugins/use-security-headers.ts); the transport's own
 * answers outside the pipeline (Node's 400/408/431, a pipeline failure) use {@link EVERY_ANSWER} too.
 *
 * - Every answer: `X-Content-Type-Options: nosniff`, so no answer (JSON, a problem, an SVG image, an event
 *   stream) is ever sniffed into a type it was not sent as (e.g. a JSON error echoing input rendered as HTML).
 * - Every answer that is not one of the gateway's pages: {@link NOT_A_PAGE_POLICY}, which lets a browser that
 *   opens it directly run nothing, load nothing and frame it nowhere.
 * - The pages (GraphiQL, `/docs`): a policy built by {@link pagePolicy} from exactly what each page needs.
 *   Inline scripts and styles are allowed by their SHA-256 hash, never by 'unsafe-inline' for scripts.
 * - Every answer: `frame-ancestors 'none'` and `X-Frame-Options: DENY` (the header older browsers read):
 *   GraphiQL holds a pasted API secret, and nothing the gateway serves is meant to be framed (clickjacking).
 */
import { createHash } from 'node:crypto';

/** Headers every answer carries, whatever its path, status or origin (pipeline or transport). */
export const EVERY_ANSWER: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

/**
 * The policy of every answer that is not a page: data, errors, images, event streams, 304s. Nothing may run
 * or load in it, it submits nowhere and no origin may frame it.
 */
export const NOT_A_PAGE_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A CSP hash source (`'sha256-…'`) for an inline `<script>` or `<style>` element's exact text. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** What one page needs beyond nothing. Every field lists sources; absent means none. */
export interface PageNeeds {
  /** Inline `<script>` elements' texts (allowed by hash). */
  inlineScripts?: readonly string[];
  /** Inline `<style>` elements' texts (allowed by hash), for a page that creates no style at run time. */
  inlineStyles?: readonly string[];
  /**
   * The page's scripts create `<style>` elements and `style` attributes at run time (GraphiQL's editor),
   * whose texts cannot be known in advance: styles then need 'unsafe-inline'. Styles cannot run code.
   */
  runtimeStyles?: boolean;
  /** `img-src` sources, e.g. `data:` for an inline icon. */
  images?: readonly string[];
  /** `font-src` sources. */
  fonts?: readonly string[];
  /** `connect-src` sources (fetch, event streams). */
  connect?: readonly string[];
  /** `worker-src` sources (e.g. `blob:` for an editor's web workers built in the page). */
  workers?: readonly string[];
}

/** The Content-Security-Policy of a page: `default-src 'none'` plus exactly its needs; never framed. */
export function pagePolicy(needs: PageNeeds): string {
  const directives: string[] = ["default-src 'none'"];
  const scripts = (needs.inlineScripts ?? []).map(cspHash);
  if (scripts.length > 0) directives.push(`script-src ${scripts.join(' ')}`);
  if (needs.runtimeStyles) {
    // Hashes would disable 'unsafe-inline' (CSP Level 2), so a page with run-time styles lists none.
    directives.push("style-src 'unsafe-inline'");
  } else {
    const styles = (needs.inlineStyles ?? []).map(cspHash);
    if (styles.length > 0) directives.push(`style-src ${styles.join(' ')}`);
  }
  for (const [name, sources] of [['img-src', needs.images], ['font-src', needs.fonts], ['connect-src', needs.connect], ['worker-src', needs.workers]] as const) {
    if (sources && sources.length > 0) directives.push(`${name} ${sources.join(' ')}`);
  }
  directives.push("base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'");
  return directives.join('; ');
}

/**
 * The texts of a page's inline `<script>` and `<style>` elements, for {@link pagePolicy}. Throws when the
 * page has one with attributes (`<script src>`, a typed or nonced element) or an unclosed one: such a page
 * needs a policy written by hand, and a silently missed script would be blocked in the browser.
 */
export function inlineElementsOf(html: string): { scripts: string[]; styles: string[] } {
  const found = { script: [] as string[], style: [] as string[] };
  // One scan in document order: an element's text is skipped whole, so a "<style>" inside a script is no element.
  const open = /<(script|style)(\s[^>]*)?>/gi;
  let match: RegExpExecArray | null;
  while ((match = open.exec(html)) !== null) {
    const tag = match[1]!.toLowerCase() as 'script' | 'style';
    if (match[2] !== undefined) throw new Error(`inlineElementsOf: <${tag}${match[2]}> has attributes; list its sources by hand`);
    const close = tag === 'script' ? /<\/script/gi : /<\/style/gi;
    close.lastIndex = open.lastIndex;
    const end = close.exec(html)?.index ?? -1;
    if (end < 0) throw new Error(`inlineElementsOf: <${tag}> at ${match.index} is not closed`);
    found[tag].push(html.slice(open.lastIndex, end));
    open.lastIndex = end;
  }
  return { scripts: found.script, styles: found.style };
}
