import { formatMoney } from '@svc/core';
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import { documentLocale, formatDay } from '../documents/document-locale.js';
import { csrfGuard } from '../http/csrf.js';
import { readForm, unreadableForm } from '../http/form-body.js';
import { type Lang, pickLang } from '../i18n/messages.js';
import { REVIEW_MESSAGES, type ReviewField } from '../i18n/review-page.js';
import { changesElements } from '../schemas/setup-plans.js';
import { findOrg } from '../services/orgs.js';
import {
  type Decision,
  decideSetupPlan,
  keptCouponFields,
  keptTaxRate,
  reviewSetupPlan,
} from '../services/setup-plans.js';
import type { AppDeps, AppEnv } from '../types.js';
import { PUBLIC_PAGE_HEADERS, TOKEN_RE } from './public-quote.js';

const CSRF_COOKIE = 'svc_review_csrf';

/**
 * The review page of a setup plan (`/setup/review/<token>`): every change as a before/after table
 * and one form to approve (all of it, in one transaction) or reject. It works without JavaScript
 * under the public pages' strict CSP. The form is protected against cross-site requests by a
 * double-submit token: a random value in a SameSite=Strict cookie scoped to this page, repeated
 * in the form (see http/csrf.ts).
 */
export function setupReviewRoutes(deps: AppDeps) {
  const csrfTokens = csrfGuard(CSRF_COOKIE, { publicUrl: deps.config.publicUrl });
  const langOf = (c: Context<AppEnv>, fallback: string): Lang =>
    pickLang(c.req.query('lang')) ?? pickLang(fallback) ?? pickLang(c.req.header('accept-language')) ?? 'es';

  const render = async (c: Context<AppEnv>, token: string, outcome?: Decision, status: 200 | 409 = 200) => {
    const review = TOKEN_RE.test(token) ? await reviewSetupPlan(deps, token) : undefined;
    if (!review) {
      const m = REVIEW_MESSAGES[langOf(c, '')];
      return c.html(
        html`<!doctype html><html><head><meta charset="utf-8"><title>${m.notFound}</title><link rel="stylesheet" href="/q/assets/quote.css"></head><body><main><section class="card"><h1>${m.notFound}</h1></section></main></body></html>`,
        404,
        PUBLIC_PAGE_HEADERS,
      );
    }
    const { plan, current } = review;
    const org = (await findOrg(deps.db, { id: plan.org_id }, plan.mode))!;
    const lang = langOf(c, org.locale);
    const m = REVIEW_MESSAGES[lang];
    const csrf = csrfTokens.issue(c, `/setup/review/${token}`);
    // Values as the merchant reads them elsewhere: amounts in their currency, rates as percentages,
    // dates long, yes and no, in the page's language as used in the organization's country.
    const locale = documentLocale(lang, org.country);
    const money = (currency: unknown) => (value: unknown) =>
      formatMoney(Number(value), typeof currency === 'string' ? currency : org.currency, locale);
    const percent = (value: unknown) =>
      new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 }).format(Number(value));
    const couponValue = (tipo: unknown, currency: unknown) =>
      tipo === 'porcentaje' ? (value: unknown) => percent(Number(value) / 100) : money(currency);
    const day = (value: unknown) => formatDay(String(value), locale);
    const show = (value: unknown, format?: (value: unknown) => string) =>
      value === undefined || value === null || value === ''
        ? m.none
        : typeof value === 'boolean'
          ? value
            ? m.yes
            : m.no
          : Array.isArray(value)
            ? value.join(', ')
            : format
              ? format(value)
              : String(value);
    /** A change's rows: its field, the value before and after, and how each side is written. */
    type Row = [field: ReviewField | string, before: unknown, after: unknown, formats?: Formats];
    type Formats = [before?: (value: unknown) => string, after?: (value: unknown) => string];
    const label = (field: string) => m.fields[field as ReviewField] ?? field;
    const table = (rows: Row[]) =>
      html`<table><thead><tr><th scope="col">${m.field}</th><th scope="col">${m.before}</th><th scope="col">${m.after}</th></tr></thead><tbody>${rows.map(
        ([field, before, after, formats]: Row) => {
          const [was, will] = [show(before, formats?.[0]), show(after, formats?.[1])];
          return html`<tr${was !== will ? html` class="changed"` : ''}><th scope="row">${label(field)}</th><td>${was}</td><td>${will}</td></tr>`;
        },
      )}</tbody></table>`;
    const p = plan.propuesta;
    // The time is UTC's, and says so (as the quote PDF's acceptance does).
    const expires = `${new Intl.DateTimeFormat(lang, {
      dateStyle: 'long',
      timeStyle: 'short',
      timeZone: 'UTC',
    }).format(new Date(plan.expires_at))} UTC`;
    const decided =
      outcome ??
      (plan.status === 'pending_review'
        ? undefined
        : plan.status === 'applied' ||
            plan.status === 'rejected' ||
            plan.status === 'expired' ||
            plan.status === 'conflict'
          ? plan.status
          : undefined);
    return c.html(
      html`<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${m.title} · ${org.nombre}</title><link rel="stylesheet" href="/q/assets/quote.css"></head>
<body><main>
<header><h1>${m.title}</h1><span class="merchant">${org.nombre}</span></header>
<nav class="meta" aria-label="Language">${(['es', 'en', 'pt', 'fr', 'de'] as const).map((l) => html`<a href="?lang=${l}" lang="${l}"${l === lang ? html` aria-current="true"` : ''}>${l.toUpperCase()}</a>`)}</nav>
${decided ? html`<p class="status" role="status">${m.status[decided as keyof typeof m.status]}</p>` : html`<p>${m.intro(org.nombre)}</p><p class="terms">${m.expires(expires)}</p>`}
${plan.resumen ? html`<section class="card"><h2>${m.summary}</h2><p>${plan.resumen}</p></section>` : ''}
${(p.productos ?? []).map((prod) => {
  const before = current.productos.get(prod.sku.toLowerCase());
  return html`<section class="card"><h2>${m.products}: ${prod.sku}${before ? '' : html` (${m.newItem})`}</h2>${table(
    [
      ['nombre', before?.nombre, prod.nombre],
      ['unidad', before?.unidad, prod.unidad],
      ['precio_lista', before?.precio_lista, prod.precio_lista, [money(before?.moneda), money(prod.moneda)]],
      ['moneda', before?.moneda, prod.moneda],
      ['tax_rate', before?.tax_rate, keptTaxRate(prod, before), [percent, percent]],
      ['aliases', before?.aliases, prod.aliases ?? before?.aliases],
    ],
  )}</section>`;
})}
${(p.cupones ?? []).map((coupon) => {
  const before = current.cupones.get(coupon.code.toLowerCase());
  const kept = keptCouponFields(coupon, before);
  return html`<section class="card"><h2>${m.coupons}: ${coupon.code}${before ? '' : html` (${m.newItem})`}</h2>${table(
    [
      ['tipo', before?.tipo, coupon.tipo],
      [
        'valor',
        before?.valor,
        coupon.valor,
        [couponValue(before?.tipo, before?.moneda), couponValue(coupon.tipo, kept.moneda)],
      ],
      ['moneda', before?.moneda, kept.moneda],
      ['max_uses', before?.max_uses, kept.max_uses],
      ['expires_at', before?.expires_at, kept.expires_at, [day, day]],
      ['active', before?.active, coupon.active ?? true],
    ],
  )}</section>`;
})}
${(p.workflows ?? []).map(
  (w) =>
    html`<section class="card"><h2>${m.workflows}: ${w.nombre} (${m.newItem})</h2>${table([
      ['objeto', null, w.objeto],
      // Every step with what it would do (a comment's words, a task's title), not its kind alone.
      [
        'pasos',
        null,
        w.pasos
          .map(({ tipo, ...settings }) => {
            const shown = Object.entries(settings).map(
              ([name, value]) => `${name}: ${JSON.stringify(value)}`,
            );
            return shown.length > 0 ? `${tipo} (${shown.join(', ')})` : tipo;
          })
          .join(' → '),
      ],
      ...(w.estados ? [['estados', null, w.estados] as Row] : []),
      ['active', null, w.activo ?? true],
    ])}</section>`,
)}
${
  changesElements(p.elements)
    ? html`<section class="card"><h2>${m.widget}</h2>${table([
        ['color', current.org.brand_color, p.elements.color ?? current.org.brand_color],
        ['origins', current.org.origins, p.elements.origins ?? current.org.origins],
        ...Object.entries(p.elements.features ?? {}).map(
          ([name, value]) => [name, current.org.widget[name] ?? null, value] as Row,
        ),
      ])}</section>`
    : ''
}
${
  decided
    ? ''
    : html`<form method="post" action="/setup/review/${token}?lang=${lang}" class="actions">
<input type="hidden" name="csrf" value="${csrf}">
<button class="primary" name="decision" value="approve">${m.approve}</button>
<button class="secondary" name="decision" value="reject">${m.reject}</button>
</form>`
}
</main></body></html>`,
      status,
      PUBLIC_PAGE_HEADERS,
    );
  };

  return new Hono<AppEnv>()
    .get('/setup/review/:token', (c) => render(c, c.req.param('token')))
    .post('/setup/review/:token', async (c) => {
      const token = c.req.param('token');
      const form = await readForm(c);
      if (!form) return unreadableForm(c);
      if (!csrfTokens.check(c, form)) {
        const m = REVIEW_MESSAGES[langOf(c, '')];
        return c.html(
          html`<!doctype html><html><head><meta charset="utf-8"><title>${m.title}</title><link rel="stylesheet" href="/q/assets/quote.css"></head><body><main><section class="card" role="alert"><p>${m.csrf}</p><p><a href="/setup/review/${token}">${m.title}</a></p></section></main></body></html>`,
          403,
          PUBLIC_PAGE_HEADERS,
        );
      }
      // Only the form's two buttons decide: anything else is not a decision, and changes nothing.
      if (form.decision !== 'approve' && form.decision !== 'reject') return unreadableForm(c);
      const decision = TOKEN_RE.test(token)
        ? await decideSetupPlan(deps, token, form.decision === 'approve')
        : undefined;
      return render(c, token, decision, decision === 'conflict' ? 409 : 200);
    });
}
