import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { CHROMIUM, haveChromium, launchHeadless, type HeadlessChromium } from '../../test/headless-chromium.ts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chartJsBundle } from './html.ts';
import { renderSweepHtml, sweepChartData } from './sweep-html.ts';
import { fixture, HOSTILE } from './sweep-fixture.ts';


describe('sweep.html (static checks)', () => {
  test('the fixture recommends the cheapest point meeting the budget', () => {
    // reloads = max(2, 6 − pool) + (1 slot ? 3 : 0) + seed mod 2: its p95 over seeds 1..3 is ≤ 3 first at
    // pool 4 with 2 slots (2 + 1 = 3).
    expect(fixture().recommendation?.settings).toEqual({ 'router.blueprintPoolSize': 4, 'router.maxDynamicServers': 2 });
  });

  test('one line per slot count along the pool size, with its confidence band', () => {
    const d = sweepChartData(fixture());
    expect(d.xKey).toBe('router.blueprintPoolSize');
    expect(d.series.map((s) => s.label)).toEqual(['router.maxDynamicServers=1', 'router.maxDynamicServers=2']);
    // Pool 4, 2 slots: seeds give 2 + 1, 2 + 0, 2 + 1 → mean 8/3, s = 0.57735, t(0.975, 2) = 4.30265,
    // half width 4.30265 · 0.57735 / √3 = 1.43422.
    const p = d.series[1]!.points[4]!;
    expect(p.mean).toBeCloseTo(8 / 3, 10);
    expect(p.upper! - p.mean!).toBeCloseTo(1.43422, 4);
  });

  test('is self-contained and escapes everything from the input', () => {
    const html = renderSweepHtml(fixture(HOSTILE));
    expect(html.includes(chartJsBundle())).toBe(true);
    const ours = html.replace(chartJsBundle(), '');
    expect(/<script[^>]+src=/.test(ours)).toBe(false);
    expect(/https?:\/\//.test(ours)).toBe(false);
    expect(ours.includes("default-src 'none'")).toBe(true);
    expect(ours.includes('<script>window.__pwned')).toBe(false);
    expect(ours.includes('<img src=x')).toBe(false);
    expect(ours).toContain('&lt;/script&gt;&lt;script&gt;window.__pwned=1');
  });

  test('shows the router env the runs had, escaped, and nothing when there was none', () => {
    const input = fixture();
    expect(renderSweepHtml(input)).not.toContain('Router env');
    input.definition.env = {
      deployment: { path: `deploy-${HOSTILE}.yaml`, sha256: 'ab'.repeat(32) },
      vars: ['ROUTER_MAX_DYNAMIC_SERVERS=2', `X=${HOSTILE}`],
      settings: { 'router.maxDynamicServers': '2' },
    };
    const html = renderSweepHtml(input).replace(chartJsBundle(), '');
    expect(html).toContain('Router env: Deployment <code>deploy-&lt;/script&gt;');
    expect(html).toContain('<code>--env ROUTER_MAX_DYNAMIC_SERVERS=2</code>');
    expect(html).toContain('<code>router.maxDynamicServers=2</code>');
    expect(html.includes('<script>window.__pwned')).toBe(false);
  });

  test('with one axis the series has no label of its own: each chart names it (never "reloads.total" on the memory chart)', () => {
    const input = fixture();
    input.definition.grid = [input.definition.grid[0]!];
    const d = sweepChartData(input);
    expect(d.series.map((s) => s.label)).toEqual(['']);
    const html = renderSweepHtml(input);
    expect(html).toContain("label: s.label || 'MiB pre-allocated'");
    expect(html).toContain("label: s.label || 'mean reloads'");
  });

  test('when no point meets the budget: the budgets, escaped, and the closest point highlighted, as stdout names it', () => {
    // reloads ≥ 2 everywhere (the floor), so `reloads.total <= 1` fails at every point, while
    // `invariants.violations == 0` holds everywhere: every point meets 1 of 2.
    const input = fixture('route-burst', ['reloads.total <= 1', 'invariants.violations == 0']);
    expect(input.verdict).toBe('none-meets-budget');
    input.definition.budgets = [...input.definition.budgets, HOSTILE];
    const html = renderSweepHtml(input).replace(chartJsBundle(), '');
    expect(html).toContain('No point of the grid meets the budget (<code>reloads.total &lt;= 1</code>, <code>invariants.violations == 0</code>, <code>&lt;/script&gt;');
    // The first in grid order (pool 0, 1 slot) is the closest, highlighted once in the points table.
    expect(html).toContain('Closest: <code>router.blueprintPoolSize=0</code> <code>router.maxDynamicServers=1</code>, meeting 1 of 2 budgets');
    expect(html.match(/<tr class="closest">/g)).toHaveLength(1);
    expect(html).toContain('<tr class="closest"><td>0</td><td>1</td>');
    expect(html).not.toContain('<script>window.__pwned');
  });

  test('the points table scrolls within its container', () => {
    expect(renderSweepHtml(fixture())).toContain('<h2>Points</h2>\n<div class="table-scroll"><table>');
  });
});

if (!haveChromium) console.warn(`sweep.html browser test skipped: ${CHROMIUM} not found (apt-get install -y chromium)`);

describe.skipIf(!haveChromium)('sweep.html in headless Chromium', () => {
  let chrome: HeadlessChromium | undefined;
  let browser: BrowserContext;
  const dir = mkdtempSync(join(tmpdir(), 'routerbench-sweep-html-'));

  beforeAll(async () => {
    chrome = await launchHeadless({ width: 1200, height: 900 });
    browser = chrome.browser;
  }, 60_000);

  afterAll(async () => {
    await chrome?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('both charts draw, bands included, with no errors, no network and no injected script', async () => {
    const file = join(dir, 'sweep.html');
    writeFileSync(file, renderSweepHtml(fixture(HOSTILE)));
    const page = await browser.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => (globalThis as unknown as { routerbenchChartsReady?: boolean }).routerbenchChartsReady === true, undefined, { timeout: 10_000 });
    for (const id of ['reloads-chart', 'cost-chart']) {
      const { width, height, ink } = (await page.evaluate(`(() => {
        const c = document.getElementById(${JSON.stringify(id)});
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let ink = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) ink++;
        return { width: c.width, height: c.height, ink: ink / (d.length / 4) };
      })()`)) as { width: number; height: number; ink: number };
      expect(width).toBeGreaterThan(100);
      expect(height).toBeGreaterThan(100);
      // Axes, lines and the filled bands cover well over 1% of the canvas; a blank canvas has 0.
      expect(ink, id).toBeGreaterThan(0.01);
    }
    const drawn = (await page.evaluate(`(() => {
      const chart = Chart.getChart('reloads-chart');
      return chart.data.datasets.map((d, i) => [d.label, d.data.length, d.fill, chart.getDatasetMeta(i).data.length]);
    })()`)) as Array<[string, number, unknown, number]>;
    // Per slot count: the band's upper edge (filled to the next dataset), its lower edge, the mean line;
    // 5 pool sizes each, all laid out.
    expect(drawn).toEqual([
      ['router.maxDynamicServers=1 (CI upper)', 5, '+1', 5],
      ['router.maxDynamicServers=1 (CI lower)', 5, false, 5],
      ['router.maxDynamicServers=1', 5, false, 5],
      ['router.maxDynamicServers=2 (CI upper)', 5, '+1', 5],
      ['router.maxDynamicServers=2 (CI lower)', 5, false, 5],
      ['router.maxDynamicServers=2', 5, false, 5],
    ]);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.textContent('h1')).toContain(HOSTILE);
    expect(await page.locator('tr.recommended td').first().textContent()).toBe('4');
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });
});
