/**
 * The pages a person opens on a phone, in real headless Chromium at 375 px against a real server: `/` and the
 * API reference `/docs` are no wider than the screen. A table or code block wider than the screen scrolls
 * inside itself (its own box, `overflow-x: auto`) or wraps; the page itself never scrolls sideways.
 *
 * Screenshots: artifacts/docs-375.png (and docs-375-table.png at its first response table), artifacts/home-375.png
 * (gitignored).
 * Without /usr/bin/chromium the test is skipped locally, and FAILS in CI (CI=true).
 *
 * One pass (npm test): the page layout is its subject, not the engine.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium, inCI, launchChromium } from '../helpers/chromium.js';
import { startRealServer, type RealServer } from '../helpers/real-server.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '../../artifacts');
const PHONE = { width: 375, height: 812 };

describe('Chromium is available where it must be', () => {
  it('in CI, /usr/bin/chromium exists', () => {
    if (inCI) expect(hasChromium, `${CHROMIUM} is missing in CI: install the Debian chromium package`).toBe(true);
  });
});

describe.skipIf(!hasChromium && !inCI)('/ and /docs at 375 px', () => {
  let server: RealServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startRealServer();
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Elements wider than the viewport that are not inside a box that scrolls them (what would widen the page). */
  async function measure(pathname: string, screenshot: string) {
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const response = await page.goto(`${server.baseUrl}${pathname}`);
    expect(response?.status()).toBe(200);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, screenshot), fullPage: false });
    // And where the first wide table is (a response table with its nested schema), scrolled into view.
    if ((await page.locator('section table').count()) > 0) {
      await page.locator('section table.resp').first().scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(ARTIFACTS, screenshot.replace('.png', '-table.png')) });
    }
    const result = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const scrolls = (el: Element) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
      const insideScroller = (el: Element) => {
        for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (scrolls(p)) return true;
        return false;
      };
      const overflowing = [...document.body.querySelectorAll('*')]
        .filter((el) => el.getBoundingClientRect().right > width + 0.5 && !insideScroller(el))
        .map((el) => `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className)}` : ''}: ${(el.textContent ?? '').slice(0, 40)}`);
      const tables = document.querySelectorAll('table').length;
      const scrollingTables = [...document.querySelectorAll('table')].filter((t) => t.scrollWidth > t.clientWidth || (t.parentElement && t.parentElement.scrollWidth > t.parentElement.clientWidth)).length;
      return { width, pageWidth: document.documentElement.scrollWidth, overflowing, tables, scrollingTables };
    });
    await context.close();
    return result;
  }

  it('/docs: the page is as wide as the screen; its tables wrap or scroll inside themselves', async () => {
    const r = await measure('/docs', 'docs-375.png');
    expect(r.width).toBe(375);
    expect(r.overflowing, r.overflowing.join('\n')).toEqual([]);
    expect(r.pageWidth).toBe(375);
    expect(r.tables).toBeGreaterThan(10);
  }, 60_000);

  it('/: the home page fits too', async () => {
    const r = await measure('/', 'home-375.png');
    expect(r.overflowing, r.overflowing.join('\n')).toEqual([]);
    expect(r.pageWidth).toBe(375);
  }, 60_000);
});
