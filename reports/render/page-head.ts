import { escapeHtml as h } from './escape.ts';

/**
 * The shared top of routerbench's HTML pages: a CSP that forbids any fetch (everything is inlined), the
 * common look, and the page's own rules after it.
 */
export function pageHead(title: string, opts: { maxWidthPx: number; cellPadding: string; css: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: ${opts.maxWidthPx}px; color: #1d232a; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: .5rem 0; } th, td { border: 1px solid #d0d7de; padding: ${opts.cellPadding}; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; } code { background: #f6f8fa; padding: .1rem .3rem; border-radius: .2rem; }
.muted { color: #59636e; } .good { color: #1f883d; font-weight: 600; } .bad { color: #cf222e; font-weight: 700; }
${opts.css}
</style>
</head>`;
}
