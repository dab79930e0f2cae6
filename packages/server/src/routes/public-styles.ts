import { brandColors } from '@svc/core';
import { Hono } from 'hono';
import type { AppEnv } from '../types.js';

/**
 * The public pages' stylesheets (quote, invoice and setup-review pages). Their strict CSP allows
 * no inline style, so the merchant's brand colour comes as a second stylesheet of our own,
 * `/q/assets/brand.css?c=<hex>`, that sets the colours the base one uses.
 */

const DEFAULT_BRAND = '1f7a4d';

const BASE = `*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f4f5f7}
main{max-width:760px;margin:0 auto;padding:24px 16px}header{display:flex;justify-content:space-between;gap:12px;flex-wrap:wrap;align-items:baseline;border-bottom:3px solid var(--brand,#1f7a4d);padding-bottom:8px}
h1{font-size:1.4rem;margin:0}.merchant{color:#4d5560}.card{background:#fff;border-radius:12px;padding:20px;margin-top:16px;box-shadow:0 1px 3px #0002}
table{width:100%;border-collapse:collapse}th,td{padding:8px 4px;text-align:left;border-bottom:1px solid #e5e7eb;vertical-align:top}
td.n,th.n{text-align:right;white-space:nowrap;padding-left:12px}.totals td{border:0;padding:4px}.totals tr.total td{font-weight:700;font-size:1.15rem;border-top:2px solid #1b1f24}
.meta{display:flex;gap:4px 24px;flex-wrap:wrap;color:#4d5560;margin-top:8px}.each{display:none}.actions{display:flex;gap:12px;margin-top:20px;flex-wrap:wrap;align-items:center}
button{font:inherit;padding:12px 20px;border-radius:8px;border:1px solid var(--brand-ink,#1f7a4d);cursor:pointer;min-height:44px}
button.primary{background:var(--brand,#1f7a4d);color:var(--on-brand,#fff);border-color:var(--brand,#1f7a4d)}button.secondary{background:#fff;color:var(--brand-ink,#1f7a4d)}
button:focus-visible,a:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid var(--brand-ink,#1f7a4d);outline-offset:2px}
.status{padding:12px;border-radius:8px;background:#eef6f1;margin-top:16px}.alert{padding:12px;border-radius:8px;background:#fdecec;color:#8a1c1c;margin-top:16px}
a.button{display:inline-block;padding:12px 20px;border-radius:8px;background:var(--brand,#1f7a4d);color:var(--on-brand,#fff);text-decoration:none;min-height:44px}a.button.secondary{background:#fff;color:var(--brand-ink,#1f7a4d);border:1px solid var(--brand-ink,#1f7a4d)}
h2{font-size:1.1rem;margin:0 0 8px}h3{font-size:1rem;margin:16px 0 8px}dl.meta{margin:8px 0 0}dl.meta div{display:flex;gap:6px}dl.meta dt{font-weight:600}dl.meta dd{margin:0}.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.terms{white-space:pre-line;color:#4d5560;font-size:.9rem}
nav.langs{display:flex;gap:8px;flex-wrap:wrap;margin-top:8px}nav.langs a{padding:4px 8px;border-radius:6px;color:#1b1f24}nav.langs a[aria-current]{background:var(--brand,#1f7a4d);color:var(--on-brand,#fff)}
tr.declined td{color:#4d5560}tr.declined td.d{text-decoration:line-through}.tag{display:inline-block;font-size:.8rem;padding:0 6px;border-radius:4px;background:#e5e7eb;color:#1b1f24;text-decoration:none;margin-left:6px}
form.stack{display:grid;gap:12px;margin-top:8px}label{font-weight:600}.field{display:grid;gap:4px}.hint{color:#4d5560;font-size:.9rem;margin:0}
input[type=text],input[type=email],input[type=date],input[type=number],select,textarea{font:inherit;padding:10px;border:1px solid #6b7280;border-radius:8px;background:#fff;color:#1b1f24;width:100%;min-height:44px}
textarea{min-height:96px;resize:vertical}fieldset{border:1px solid #e5e7eb;border-radius:8px;padding:12px;margin:0}legend{font-weight:600;padding:0 4px}
.check{display:flex;gap:8px;align-items:flex-start;padding:6px 0;font-weight:400}.check input{width:22px;height:22px;margin:2px 0 0;flex:none}
ol.messages{list-style:none;padding:0;margin:0;display:grid;gap:10px}ol.messages li{border-left:4px solid #d1d5db;padding:6px 10px;background:#f9fafb;border-radius:0 8px 8px 0}
ol.messages li.vendedor{border-left-color:var(--brand,#1f7a4d)}.who{font-weight:600}.when{color:#4d5560;font-size:.85rem}.text{white-space:pre-line;margin:4px 0 0;overflow-wrap:anywhere}
.accepted{color:#4d5560;font-size:.9rem;margin-top:12px}
.field-error{color:#8a1c1c;font-weight:600;margin:0}[aria-invalid=true]:not([type=checkbox]){border:2px solid #b42318}.alert p{margin:0}.alert ul{margin:4px 0 0;padding-left:20px}.alert a{color:#8a1c1c}
td.q{overflow-wrap:anywhere}
@media (max-width:560px){main{padding:16px 12px}.card{padding:16px}
table.lines,table.lines tbody,table.stack,table.stack tbody{display:block}
table.lines thead,table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
tr.line,table.stack tr{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:2px 12px;padding:10px 4px;border-bottom:1px solid #e5e7eb}
tr.line td,table.stack td{border:0;padding:0;min-width:0}tr.line td.d{grid-column:1/3;font-weight:600}tr.line td.q{text-align:left;color:#4d5560;white-space:normal}tr.line td.p{display:none}.each{display:inline}
tr.line td.n:last-child,table.stack td.n{grid-column:2;text-align:right}table.stack td.n{grid-row:1}table.stack td:not(.n){grid-column:1;overflow-wrap:anywhere}
table.totals,table.totals tbody{display:block}table.totals tr{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:0 12px}table.totals td{overflow-wrap:anywhere}table.totals td.n{overflow-wrap:normal}
table.totals tr.total{border-top:2px solid #1b1f24;margin-top:4px}table.totals tr.total td{border:0}
table.stack td[data-label]{color:#4d5560;grid-column:1/3}table.stack td[data-label]::before{content:attr(data-label) " "}}`;

/**
 * The colours of a brand: the brand itself for surfaces, the text that reads on it (white or near
 * black), and an ink dark enough to read on white (WCAG AA, 4.5:1), for outlines and text; the
 * widget picks them the same way (`brandColors` of `@svc/core`).
 */
export function brandCss(color: string | null | undefined): string {
  const hex = /^#?[0-9a-fA-F]{6}$/.test(color ?? '') ? color!.replace('#', '').toLowerCase() : DEFAULT_BRAND;
  const [onBrand, ink] = brandColors(`#${hex}`)!;
  return `:root{--brand:#${hex};--on-brand:${onBrand};--brand-ink:${ink}}`;
}

/** The stylesheet link of a merchant's brand colour, for a page's `<head>`. */
export const brandHref = (color: string | null | undefined) =>
  `/q/assets/brand.css?c=${encodeURIComponent((color ?? DEFAULT_BRAND).replace('#', ''))}`;

const CSS_HEADERS = { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' };

export function publicStyleRoutes() {
  return new Hono<AppEnv>()
    .get('/q/assets/quote.css', (c) => c.body(BASE, 200, CSS_HEADERS))
    .get('/q/assets/brand.css', (c) => c.body(brandCss(c.req.query('c')), 200, CSS_HEADERS));
}
