import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { CHROMIUM, haveChromium, launchHeadless, type HeadlessChromium } from '../../test/headless-chromium.ts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { OutputRecord } from '../../sim/output/records.ts';
import { sampleReport } from '../report-fixture.ts';
import { projectTimeline } from '../timeline.ts';
import { chartJsBundle, histogram, renderHtmlReport } from './html.ts';
import { hostileReport, sampleRecords } from './html-fixture.ts';

describe('report.html (static checks)', () => {
  const html = renderHtmlReport({ report: sampleReport() }, projectTimeline(sampleRecords()));

  test('is self-contained: chart.js inlined, nothing fetched', () => {
    expect(html.includes(chartJsBundle())).toBe(true);
    const ours = html.replace(chartJsBundle(), '');
    expect(ours.length).toBeLessThan(40_000);
    expect(/<script[^>]+src=/.test(ours)).toBe(false);
    expect(/<link[^>]+href=/.test(ours)).toBe(false);
    expect(/https?:\/\//.test(ours)).toBe(false);
    expect(ours.includes("default-src 'none'")).toBe(true);
  });

  test('escapes everything from the input', () => {
    const report = {
      ...hostileReport(),
      warnings: { total: 1, list: [{ atMs: 5, message: "node.fail: no cluster node '<img src=y onerror=\"window.__pwned=5\">'", count: 1 }] },
      invariants: { checked: 1, violations: [{ atMs: 2500, name: 'haproxy-view', detail: 'x/<img src=z onerror="window.__pwned=6">: backend be serves [], expected [10.0.0.1:80]' }] },
    };
    const page = renderHtmlReport({ report }, projectTimeline([
      { atUs: 0, type: 'input', event: 'node.fail', subject: '</script><script>window.__pwned=4</script>' },
      { atUs: 1000, type: 'run.end', events: 1, simulatedMs: 1 },
    ] as OutputRecord[]));
    expect(page.includes('<img src=x')).toBe(false);
    expect(page.includes('<script>window.__pwned')).toBe(false);
    expect(page.includes('&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;')).toBe(true);
    expect(page.includes('<img src=y')).toBe(false);
    expect(page.includes('<h2>Warnings (1)</h2>')).toBe(true);
    expect(page.includes('&lt;img src=y onerror=&quot;window.__pwned=5&quot;&gt;')).toBe(true);
    // The invariant violations have a section of their own: time, invariant, the route with what should serve it and what did.
    expect(page.includes('<h2>Invariant violations (1)</h2>')).toBe(true);
    expect(page.includes('<img src=z')).toBe(false);
    expect(page.includes('<td class="num">2.5</td><td>haproxy-view</td><td>x/&lt;img src=z onerror=&quot;window.__pwned=6&quot;&gt;: backend be serves [], expected [10.0.0.1:80]</td>')).toBe(true);
  });

  test('shows the black hole beside the other outages, and who holds each VIP at the end', () => {
    const base = sampleReport();
    const report = sampleReport({ failover: { ...base.failover, blackholeMs: 1500, owners: [{ vip: '10.0.0.100', vrid: 51, masters: ['node-a'] }, { vip: '10.0.0.101', vrid: 52, masters: [] }] } });
    const page = renderHtmlReport({ report }, projectTimeline(sampleRecords()));
    expect(page).toContain('<tr><td>Master with no serving router: traffic black-holed (failover.blackholeMs)</td><td class="num">1500</td></tr>');
    expect(page).toContain('<tr><td>10.0.0.100</td><td class="num">51</td><td>node-a</td></tr>');
    expect(page).toContain('<tr><td>10.0.0.101</td><td class="num">52</td><td>— (no master)</td></tr>');
    // A run without a cluster has neither table.
    expect(html.includes('VIP owners')).toBe(false);
  });
});

test('histogram bins latencies in round widths', () => {
  // 3100..4000: span 900 → raw width 90 → 100 ms bins from 3100: [3100,3200) … [4000,4100).
  expect(histogram([3100, 3150, 4000])).toEqual({ binMs: 100, fromMs: 3100, counts: [2, 0, 0, 0, 0, 0, 0, 0, 0, 1] });
  expect(histogram([5000])).toEqual({ binMs: 1, fromMs: 5000, counts: [1] });
  expect(histogram([])).toEqual({ binMs: 1000, fromMs: 0, counts: [] });
});

if (!haveChromium) {
  // CI installs Debian's chromium (see .ci/run); locally: apt-get install -y chromium
  console.warn(`report.html browser test skipped: ${CHROMIUM} not found (apt-get install -y chromium)`);
}

describe.skipIf(!haveChromium)('report.html in headless Chromium', () => {
  let chrome: HeadlessChromium | undefined;
  let browser: BrowserContext;
  const dir = mkdtempSync(join(tmpdir(), 'routerbench-html-'));

  beforeAll(async () => {
    chrome = await launchHeadless({ width: 1200, height: 900 });
    browser = chrome.browser;
  }, 60_000);

  afterAll(async () => {
    await chrome?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(html: string) {
    const file = join(dir, `report-${Math.random().toString(36).slice(2)}.html`);
    writeFileSync(file, html);
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
    return { page, errors, requests };
  }

  /** Share of a canvas's pixels that are not transparent: 0 means nothing was drawn. */
  const inkOf = (id: string) => `(() => {
    const c = document.getElementById(${JSON.stringify(id)});
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) ink++;
    return { width: c.width, height: c.height, ink: ink / (d.length / 4) };
  })()`;

  test('the three charts draw, with no errors and no network', async () => {
    const { page, errors, requests } = await open(renderHtmlReport({ report: sampleReport() }, projectTimeline(sampleRecords())));
    for (const id of ['reloads-chart', 'latency-chart', 'timeline-chart']) {
      const { width, height, ink } = (await page.evaluate(inkOf(id))) as { width: number; height: number; ink: number };
      expect(width).toBeGreaterThan(100);
      expect(height).toBeGreaterThan(100);
      // Axes, labels and bars cover well over 1% of the canvas; a blank canvas has 0.
      expect(ink, id).toBeGreaterThan(0.01);
    }
    // The timeline has a bar per marker and per VIP-master segment: infra-1, no master, infra-2; no
    // segment had two masters, so there is no split-brain entry.
    const segments = await page.evaluate(() => {
      const chart = (globalThis as unknown as { Chart: { getChart(id: string): { data: { datasets: Array<{ label: string; data: unknown[] }> } } } }).Chart.getChart('timeline-chart');
      return chart.data.datasets.map((d) => [d.label, d.data.length]);
    });
    expect(segments).toEqual([
      ['faults', 2],
      ['reloads', 2],
      ['no master', 1],
      ['master infra-1', 1],
      ['master infra-2', 1],
    ]);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });

  test('hostile input is shown as text, never run', async () => {
    const timeline = projectTimeline([
      { atUs: 0, type: 'input', event: 'node.fail', subject: '</script><script>window.__pwned=4</script>' },
      { atUs: 5_000_000, type: 'run.end', events: 1, simulatedMs: 5000 },
    ] as OutputRecord[]);
    const { page, errors } = await open(renderHtmlReport({ report: hostileReport() }, timeline));
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.textContent('h1')).toContain('<img src=x onerror="window.__pwned=1">');
    expect(errors).toEqual([]);
    await page.close();
  });
});
