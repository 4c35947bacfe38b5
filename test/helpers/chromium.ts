/**
 * Debian's Chromium for the browser tests (never a downloaded browser): where it is, whether the tests may
 * skip without it (only outside CI), and the launch flags every browser test uses.
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
export const inCI = process.env.CI === 'true';

/** Headless Chromium with the project's flags (no sandbox as root, no network of its own, no first-run UI). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}
