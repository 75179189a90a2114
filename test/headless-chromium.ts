import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium, which .ci/run installs; the browser tests skip, saying so, where it is missing. */
export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

export interface HeadlessChromium {
  browser: BrowserContext;
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fresh profile directory (playwright passes it as --user-data-dir), no network
 * chatter of its own, removed again by close().
 */
export async function launchHeadless(viewport: { width: number; height: number }): Promise<HeadlessChromium> {
  const profile = mkdtempSync(join(tmpdir(), 'routerbench-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    viewport,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
