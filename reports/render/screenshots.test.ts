import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { CHROMIUM, haveChromium, launchHeadless, type HeadlessChromium } from '../../test/headless-chromium.ts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadRunInput } from '../../sim/load-input.ts';
import { runOne } from '../../sim/run.ts';
import { decodePng, type Rgba } from '../../test/png.ts';
import { createTimelineProjection } from '../timeline.ts';
import { renderHtmlReport } from './html.ts';
import { DENSITY_THRESHOLD } from './report-charts.ts';
import { fixture } from './sweep-fixture.ts';
import { renderSweepHtml } from './sweep-html.ts';

/*
 * The reports as a reader sees them: each page rendered by headless Chromium at 1400 × 900 and captured
 * whole as a PNG, which the test decodes and measures (test/png.ts). Set ROUTERBENCH_SCREENSHOTS=dir to
 * keep the PNGs and look at them.
 */
const VIEWPORT = { width: 1400, height: 900 };
const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Share of a rectangle's pixels that are coloured (channels spread by more than 48 of 255): chart.js draws
 * axes, grid and text in greys, so an empty or axes-only chart has none; bars, bands and lines have some.
 */
function colourIn(img: Rgba, box: { x: number; y: number; width: number; height: number }): number {
  let n = 0;
  let area = 0;
  for (let y = Math.max(0, Math.floor(box.y)); y < Math.min(img.height, Math.ceil(box.y + box.height)); y++) {
    for (let x = Math.max(0, Math.floor(box.x)); x < Math.min(img.width, Math.ceil(box.x + box.width)); x++) {
      const i = (y * img.width + x) * 4;
      const [r, g, b] = [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
      if (Math.max(r, g, b) - Math.min(r, g, b) > 48) n++;
      area++;
    }
  }
  return area === 0 ? 0 : n / area;
}

/** A run to its report.html, the timeline folded from its records as `run --out` does. */
function reportPage(file: string): string {
  const timeline = createTimelineProjection();
  const { report } = runOne(loadRunInput(file, {}), undefined, [timeline]);
  return renderHtmlReport({ report }, timeline.result());
}

/**
 * Six simulated hours of a router reloading back to back: about 194,000 events from the generators
 * (sim/generate/) — endpoint scaling every 0.11 s on average over 20 services, route churn, rollouts —
 * under reload-always at its 5 s interval, so 4,244 reloads. A day at the same rates is the same picture
 * four times longer and took 14 s to 56 s to simulate on a loaded 2-core machine; six hours take a quarter.
 */
const BUSY = `name: busy-router
seed: 42
router: { strategy: reload-always, reloadIntervalMs: 5000 }
generate:
  durationMs: 21600000
  world: { namespaces: 4, services: 20, endpointsPerService: 3, workers: 4 }
  routes: { initial: 20, createPerHour: 60, deletePerHour: 58, mix: { http: 2, edge: 1, passthrough: 1 }, max: 30 }
  scale: { perHour: 32000, min: 1, max: 8, step: 3 }
  rollouts: { perHour: 80, batchSize: 1, batchIntervalMs: 10000, readyAfterMs: 5000 }
`;

if (!haveChromium) console.warn(`screenshot tests skipped: ${CHROMIUM} not found (CI installs it, .ci/run; locally apt-get install -y chromium)`);

describe.skipIf(!haveChromium)('screenshots in headless Chromium', () => {
  let chrome: HeadlessChromium | undefined;
  let browser: BrowserContext;
  const dir = mkdtempSync(join(tmpdir(), 'routerbench-shots-'));
  const keep = process.env['ROUTERBENCH_SCREENSHOTS'];

  beforeAll(async () => {
    chrome = await launchHeadless(VIEWPORT);
    browser = chrome.browser;
  }, 60_000);

  afterAll(async () => {
    await chrome?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Opens the page, waits for its charts, captures it whole; what the browser said and where things are. */
  async function shoot(name: string, html: string) {
    const file = join(dir, `${name}.html`);
    writeFileSync(file, html);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
    });
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => (globalThis as unknown as { routerbenchChartsReady?: boolean }).routerbenchChartsReady === true, undefined, { timeout: 20_000 });
    const layout = (await page.evaluate(`(() => {
      const box = (el) => { const r = el.getBoundingClientRect(); return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height, right: r.right + scrollX }; };
      const canvases = {};
      for (const c of document.querySelectorAll('canvas')) canvases[c.id] = box(c);
      return { canvases, scrollWidth: document.documentElement.scrollWidth, innerWidth: innerWidth, scrollers: [...document.querySelectorAll('.table-scroll')].map(box) };
    })()`)) as { canvases: Record<string, { x: number; y: number; width: number; height: number; right: number }>; scrollWidth: number; innerWidth: number; scrollers: Array<{ right: number; width: number }> };
    const png = await page.screenshot({ fullPage: true });
    if (keep !== undefined) {
      mkdirSync(keep, { recursive: true });
      writeFileSync(join(keep, `${name}.png`), png);
    }
    const datasets = (id: string) =>
      page.evaluate(`Chart.getChart(${JSON.stringify(id)}).data.datasets.map((d) => ({ label: d.label, n: d.data.length, dash: JSON.stringify(d.borderDash || []), shape: d.pointStyle || '' }))`) as Promise<Array<{ label: string; n: number; dash: string; shape: string }>>;
    return { page, errors, layout, img: decodePng(png), datasets };
  }

  test('a small run (churn-with-failover): every chart drawn, nothing wider than the window, no errors', async () => {
    const { page, errors, layout, img } = await shoot('small-run', reportPage(join(ROOT, 'scenarios', 'churn-with-failover.yaml')));
    expect(Object.keys(layout.canvases)).toEqual(['reloads-chart', 'latency-chart', 'timeline-chart']);
    // Measured on this page (chart.js 4.6.1, Debian's Chromium): 9.9%, 11.4% and 10.4% of each canvas is
    // coloured; a blank or axes-only canvas has 0. The bounds leave a wide margin below.
    expect(colourIn(img, layout.canvases['reloads-chart']!)).toBeGreaterThan(0.02);
    expect(colourIn(img, layout.canvases['latency-chart']!)).toBeGreaterThan(0.02);
    expect(colourIn(img, layout.canvases['timeline-chart']!)).toBeGreaterThan(0.02);
    expect(layout.scrollWidth).toBeLessThanOrEqual(VIEWPORT.width);
    expect(errors).toEqual([]);
    await page.close();
  });

  test(`a busy router, about 194,000 events: reload rate by reason, the timeline as density, no failover chart`, async () => {
    const scenario = join(dir, 'busy-router.yaml');
    writeFileSync(scenario, BUSY);
    const { page, errors, layout, img, datasets } = await shoot('busy-run', reportPage(scenario));
    // No VRRP cluster: no latency chart at all.
    expect(Object.keys(layout.canvases)).toEqual(['reloads-chart', 'timeline-chart']);
    // Measured: 52% (stacked bars all along) and 24% (a density strip all along); axes alone give 0.
    expect(colourIn(img, layout.canvases['reloads-chart']!)).toBeGreaterThan(0.2);
    expect(colourIn(img, layout.canvases['timeline-chart']!)).toBeGreaterThan(0.1);
    // 4,244 reloads > DENSITY_THRESHOLD: the reloads row is one density dataset, one bar per bucket that
    // had any: 6 h in 1 s buckets doubled to 128 s (64 s would give 337 > 240) is 168.75 buckets; each of
    // the 168 whole ones holds about 25 reloads (one per 5 s), the tail and the settle time after it may not.
    const timeline = await datasets('timeline-chart');
    expect(timeline).toHaveLength(1);
    expect(timeline[0]!.label).toMatch(/^reloads per 128 s \(darker: more, up to \d+\)$/);
    expect(timeline[0]!.n).toBeGreaterThanOrEqual(168);
    expect(timeline[0]!.n).toBeLessThanOrEqual(170);
    expect(DENSITY_THRESHOLD).toBeLessThan(4244);
    // Reasons stacked: route changes and endpoint changes both ask for reloads here, and the initial one.
    const rate = await datasets('reloads-chart');
    expect(rate.map((d) => d.label).sort()).toEqual(['endpoints-change', 'initial', 'input events (right axis)', 'route-change']);
    expect(layout.scrollWidth).toBeLessThanOrEqual(VIEWPORT.width);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  test('a two-axis sweep: coinciding series drawn apart, the points table scrolling inside the page', async () => {
    // Slot counts 2 and 5 reload alike: their lines coincide unless drawn apart.
    const { page, errors, layout, img, datasets } = await shoot('sweep', renderSweepHtml(fixture('route-burst', ['reloads.total <= 3'], [1, 2, 5])));
    // Measured: 1.2% of each canvas (thin lines and light bands); axes alone give 0.
    expect(colourIn(img, layout.canvases['reloads-chart']!)).toBeGreaterThan(0.004);
    expect(colourIn(img, layout.canvases['cost-chart']!)).toBeGreaterThan(0.004);
    const lines = (await datasets('reloads-chart')).filter((d) => !d.label.includes('(CI'));
    expect(lines.map((d) => d.label)).toEqual(['router.maxDynamicServers=1', 'router.maxDynamicServers=2', 'router.maxDynamicServers=5']);
    // Each series has its own dash and point shape.
    expect(new Set(lines.map((d) => `${d.dash} ${d.shape}`)).size).toBe(3);
    // The page is no wider than the window; the table's box ends inside it and scrolls within.
    expect(layout.scrollWidth).toBeLessThanOrEqual(VIEWPORT.width);
    expect(layout.scrollers).toHaveLength(1);
    expect(layout.scrollers[0]!.right).toBeLessThanOrEqual(VIEWPORT.width);
    expect(errors).toEqual([]);
    await page.close();
  });
});
