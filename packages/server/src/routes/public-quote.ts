import { currencyExponent, fromMinor, parseDecimal, toMinor } from '@svc/core';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import * as v from 'valibot';
import { renderPdf } from '../documents/pdf-document.js';
import { quotePdfView } from '../documents/quote-document.js';
import { ApiError } from '../errors.js';
import { clientIp } from '../http/client-ip.js';
import { csrfGuard } from '../http/csrf.js';
import { readForm } from '../http/form-body.js';
import { type Lang, pickLang } from '../i18n/messages.js';
import { QUOTE_PAGE_MESSAGES, type QuotePageMessages } from '../i18n/quote-page.js';
import { enforceRateLimit } from '../middleware/rate-limit.js';
import { findQuoteMessages, type Proposal } from '../repositories/quote-messages.js';
import { findQuoteByToken, findQuoteItems, type QuoteRow } from '../repositories/quotes.js';
import { dayExists, emailAddress } from '../schemas/requests.js';
import { approveOnPage, commentOnPage, promiseOnPage, rejectOnPage } from '../services/client-decisions.js';
import { findOrg } from '../services/orgs.js';
import { balanceOf, isoDay, paymentFields } from '../services/payments.js';
import { findPublicQuote, markViewed } from '../services/quote-actions.js';
import { cleanMessage } from '../services/quote-conversation.js';
import type { AppDeps, AppEnv } from '../types.js';
import { decimalMark, quoteNotFoundPage, quotePage, quotePreparingPage } from './public-quote-page.js';
import { publicStyleRoutes } from './public-styles.js';

/** What a public link's token looks like; anything else is a 404 without a query. */
export const TOKEN_RE = /^[0-9A-Za-z]{20,80}$/;

// Strict CSP: the page has no script at all, and its stylesheets are served by us.
const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' https: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Headers of every public page: strict CSP, never cached, no referrer (the URL is a credential). */
export const PUBLIC_PAGE_HEADERS = {
  'Content-Security-Policy': CSP,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * How often the page's forms may be sent, per quote token and per client address, in a window of
 * ten minutes: a client who talks a lot stays far below; a flood answers 429 and writes nothing.
 */
export const PAGE_FORM_LIMITS = { perToken: 20, perIp: 60, windowMs: 10 * 60_000 };

const FORMS = ['approve', 'reject', 'comment', 'promise'] as const;
type PageForm = (typeof FORMS)[number];
const PROPOSALS = ['precio_unitario', 'cantidad', 'total'] as const;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The fields of the page's forms that an error can name (their element ids on the page). */
export type PageField =
  | 'lineas'
  | 'nombre'
  | 'email'
  | 'motivo'
  | 'mensaje'
  | 'tipo_propuesta'
  | 'valor'
  | 'item_id'
  | 'fecha_promesa'
  | 'monto';
export type FieldErrors = Partial<Record<PageField, string>>;

/** A form the page refuses, with a localized message for each field to correct. */
class FormRefusal extends Error {
  constructor(readonly fields: FieldErrors) {
    super(Object.keys(fields).join(', '));
  }
}

type FormBody = Record<string, string | File | (string | File)[]>;
const text = (form: FormBody, name: string) => {
  const value = form[name];
  return typeof value === 'string' ? value : '';
};
/**
 * A number above 0 as the client typed it: in the page's locale (`1.234,5` in Spain, `1,234.5` in
 * Mexico), the other mark read sensibly too, as the widget reads it (`parseDecimal`).
 */
const positiveNumber = (raw: string, mark: string) => {
  const value = parseDecimal(raw.trim(), mark);
  return Number.isFinite(value) && value > 0 ? value : undefined;
};

/**
 * The public quote page `/q/<token>` and its forms (design.md section 14): approve all lines or
 * some with an electronic acceptance, reject with a reason, the conversation and counteroffers, a
 * promise to pay, the PDF. Each form is CSRF-protected, limited per token and per address, and
 * answered by a redirect to the page (post/redirect/get) or by the page with the reason.
 */
export function publicQuoteRoutes(deps: AppDeps) {
  const csrf = csrfGuard('svc_quote_csrf', { publicUrl: deps.config.publicUrl });
  const headers = PUBLIC_PAGE_HEADERS;
  const langOf = (c: Context<AppEnv>, quote: QuoteRow): Lang =>
    pickLang(c.req.query('lang')) ?? pickLang(quote.language ?? quote.draft_language) ?? 'es';
  const publicQuote = async (token: string) =>
    TOKEN_RE.test(token) ? await findPublicQuote(deps.db, token) : undefined;
  const notFound = (c: Context<AppEnv>) =>
    c.html(quoteNotFoundPage(pickLang(c.req.query('lang')) ?? 'es'), 404, headers);

  const render = async (
    c: Context<AppEnv>,
    quote: QuoteRow,
    status: 200 | 400 | 403 | 409 | 413 | 429 = 200,
    extra: {
      notice?: string;
      error?: string;
      fieldErrors?: FieldErrors;
      values?: Record<string, string>;
      chosenLines?: string[];
      announceDecision?: boolean;
      headers?: Record<string, string>;
    } = {},
  ) => {
    const [org, items, payments, conversation] = await Promise.all([
      findOrg(deps.db, { id: quote.org_id }, quote.mode),
      findQuoteItems(deps.db, quote.id),
      paymentFields(deps.db, quote),
      findQuoteMessages(deps.db, quote.id),
    ]);
    const view = quotePage({
      quote,
      items,
      org: org!,
      lang: langOf(c, quote),
      payments,
      conversation,
      csrf: csrf.issue(c, `/q/${quote.token}`),
      today: isoDay(deps.now()),
      ...extra,
    });
    return c.html(view, status, { ...headers, ...extra.headers });
  };

  /** A form too large or unreadable: the page again, in its language, saying so. */
  const refusedForm = async (c: Context<AppEnv>, status: 400 | 413) => {
    const quote = await publicQuote(c.req.param('token') ?? '');
    if (!quote) return notFound(c);
    return render(c, quote, status, { error: QUOTE_PAGE_MESSAGES[langOf(c, quote)].errors.other });
  };

  /** Reads the form, checks what the page can check itself, and runs it. */
  const runForm = async (
    c: Context<AppEnv>,
    quote: QuoteRow,
    name: PageForm,
    form: FormBody,
    p: QuotePageMessages,
  ) => {
    const token = quote.token;
    // The decimal mark amounts are typed with: the page's language in the merchant's country, read
    // only by the forms that carry an amount.
    const mark = async () =>
      decimalMark(`${langOf(c, quote)}-${(await findOrg(deps.db, { id: quote.org_id }))?.country ?? 'MX'}`);
    if (name === 'approve') {
      const ticked = [form.lineas].flat().filter((id): id is string => typeof id === 'string');
      // The page's form says it offered the lines to choose (`eleccion`): then none ticked is a
      // mistake to point out. A form that offers no choice approves the whole quote.
      const lineas = ticked.length === 0 && text(form, 'eleccion') !== 'lineas' ? 'all' : ticked;
      const nombre = text(form, 'nombre').trim();
      const email = v.safeParse(emailAddress, text(form, 'email'));
      const fields: FieldErrors = {};
      if (lineas.length === 0) fields.lineas = p.errors.lineas;
      if (!nombre || nombre.length > 200) fields.nombre = p.errors.nombre;
      if (!email.success) fields.email = p.errors.email;
      if (!email.success || Object.keys(fields).length > 0) throw new FormRefusal(fields);
      await approveOnPage(deps, token, lineas, {
        nombre,
        email: email.output,
        ip: clientIp(c, deps.config.trustProxy),
      });
    } else if (name === 'reject') {
      const motivo = text(form, 'motivo').trim();
      await rejectOnPage(deps, token, motivo ? cleanMessage(motivo, 'motivo') : null);
    } else if (name === 'comment') {
      const kind = text(form, 'tipo_propuesta') as (typeof PROPOSALS)[number] | '';
      let propuesta: Proposal | null = null;
      if (kind) {
        const value = positiveNumber(text(form, 'valor'), await mark());
        if (!PROPOSALS.includes(kind)) throw new FormRefusal({ tipo_propuesta: p.errors.other });
        if (value === undefined) throw new FormRefusal({ valor: p.errors.propuesta });
        propuesta = { [kind]: value };
      }
      await commentOnPage(deps, token, {
        mensaje: text(form, 'mensaje'),
        item_id: text(form, 'item_id') || null,
        propuesta,
      });
    } else {
      const fecha = text(form, 'fecha_promesa');
      const monto = positiveNumber(text(form, 'monto'), await mark());
      const fields: FieldErrors = {};
      if (!ISO_DATE.test(fecha) || !dayExists(fecha) || fecha < isoDay(deps.now()))
        fields.fecha_promesa = p.errors.promiseDate;
      const balance = balanceOf(quote);
      if (monto === undefined) fields.monto = p.errors.promiseAmount;
      else if (fromMinor(toMinor(monto, quote.moneda), quote.moneda) !== monto)
        fields.monto = p.errors.promiseDecimals(currencyExponent(quote.moneda));
      else if (quote.status === 'approved' && balance > 0 && monto > balance)
        fields.monto = p.errors.promiseOverBalance;
      if (monto === undefined || Object.keys(fields).length > 0) throw new FormRefusal(fields);
      await promiseOnPage(deps, token, { fecha_promesa: fecha, monto });
    }
  };

  /**
   * The fields a refusal of the services names, with their localized messages (by the error's
   * `field`, or the field its message starts with); undefined when it names none of the page's.
   */
  const fieldsOf = (error: ApiError, quote: QuoteRow, p: QuotePageMessages): FieldErrors | undefined => {
    const field = String(error.extra.field ?? error.message.split(/[:.]/)[0]);
    // A line id that is not this quote's (an old page, an edited form) is not a missing choice: it
    // says so, rather than asking to tick a line or to pick one for a proposal never made.
    const foreignLine = error.message.includes('not a line of this quote');
    if (field === 'lineas') return { lineas: foreignLine ? p.errors.linesNotOnQuote : p.errors.lineas };
    if (field === 'motivo') return { motivo: p.errors.motivo };
    if (field === 'mensaje') return { mensaje: p.errors.mensaje };
    if (field === 'propuesta') {
      // A price or total with more decimals than the currency has (`at most 2 decimals in MXN`) is
      // above zero: it gets the promise form's wording. A quantity's limit says "up to 4 decimals".
      if (error.message.includes('decimals in'))
        return { valor: p.errors.promiseDecimals(currencyExponent(quote.moneda)) };
      return { valor: p.errors.propuesta };
    }
    if (field === 'item_id') return { item_id: foreignLine ? p.errors.lineNotOnQuote : p.errors.item_id };
    if (field === 'fecha_promesa') return { fecha_promesa: p.errors.promiseDate };
    if (field === 'monto') {
      if (error.message.includes('decimals'))
        return { monto: p.errors.promiseDecimals(currencyExponent(quote.moneda)) };
      return {
        monto: error.message.includes('balance') ? p.errors.promiseOverBalance : p.errors.promiseAmount,
      };
    }
    return undefined;
  };

  return (
    new Hono<AppEnv>()
      .route('/', publicStyleRoutes())
      .get('/q/:token', async (c) => {
        const token = c.req.param('token');
        let quote = await publicQuote(token);
        if (!quote) {
          const draft = TOKEN_RE.test(token) ? await findQuoteByToken(deps.db, token) : undefined;
          if (draft?.status !== 'draft') return notFound(c);
          const lang = pickLang(c.req.query('lang')) ?? pickLang(draft.draft_language) ?? 'es';
          return c.html(quotePreparingPage(lang, draft.folio), 404, headers);
        }
        // A HEAD (a link checker, a preview) changes nothing: only a page that is read is "viewed".
        if (c.req.method !== 'HEAD' && (quote.status === 'sent' || quote.status === 'viewed'))
          quote = (await markViewed(deps.db, quote.token, deps.now())) ?? quote;
        const done = c.req.query('hecho');
        const p = QUOTE_PAGE_MESSAGES[langOf(c, quote)];
        // The notice after a form. A decision is announced by the quote's own state line (once,
        // and saying whether all or part was approved), and only while the quote shows it: a
        // crafted link cannot make an open quote say "you approved".
        const shown = FORMS.includes(done as PageForm) ? (done as PageForm) : undefined;
        const decided = { approve: 'approved', reject: 'rejected' } as Partial<Record<PageForm, string>>;
        const notice = shown && !decided[shown] ? p.done[shown] : undefined;
        const announceDecision = shown !== undefined && decided[shown] === quote.status;
        return render(c, quote, 200, { notice, announceDecision });
      })
      .get('/q/:token/pdf', async (c) => {
        const quote = await publicQuote(c.req.param('token'));
        if (!quote) return notFound(c);
        const [org, items, payments] = await Promise.all([
          findOrg(deps.db, { id: quote.org_id }, quote.mode),
          findQuoteItems(deps.db, quote.id),
          paymentFields(deps.db, quote),
        ]);
        const pdf = await renderPdf(quotePdfView(quote, items, org!, langOf(c, quote), payments));
        return c.body(new Uint8Array(pdf), 200, {
          ...headers,
          'Content-Type': 'application/pdf',
          'Content-Disposition': `inline; filename="${quote.folio}.pdf"`,
        });
      })
      .post(
        '/q/:token/:form{approve|reject|comment|promise}',
        bodyLimit({ maxSize: 64 * 1024, onError: (c) => refusedForm(c, 413) }),
        async (c) => {
          const quote = await publicQuote(c.req.param('token'));
          if (!quote) return notFound(c);
          const name = c.req.param('form') as PageForm;
          const p = QUOTE_PAGE_MESSAGES[langOf(c, quote)];
          const read = await readForm(c, true);
          if (!read) return refusedForm(c, 400);
          const form = read as FormBody;
          const values = Object.fromEntries(
            Object.entries(form).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
          );
          delete values.csrf;
          // The lines the client ticked, given back as they were if the approval is refused.
          const chosenLines =
            name === 'approve'
              ? [form.lineas].flat().filter((id): id is string => typeof id === 'string')
              : undefined;
          if (!csrf.check(c, form))
            return render(c, quote, 403, { error: p.errors.csrf, values, chosenLines });
          // U+0000 cannot be stored in any text: refused before anything is counted or written.
          if (Object.values(values).some((value) => value.includes('\0'))) {
            return render(c, quote, 400, { error: p.errors.other, values: {} });
          }
          const now = deps.now();
          try {
            const { perToken, perIp, windowMs } = PAGE_FORM_LIMITS;
            await enforceRateLimit(deps.db, `quote-page:token:${quote.token}`, perToken, now, windowMs);
            const ip = clientIp(c, deps.config.trustProxy);
            await enforceRateLimit(deps.db, `quote-page:ip:${ip}`, perIp, now, windowMs);
          } catch (error) {
            if (!(error instanceof ApiError)) throw error;
            return render(c, quote, 429, {
              error: p.errors.rateLimited,
              values,
              chosenLines,
              headers: error.headers,
            });
          }
          try {
            await runForm(c, quote, name, form, p);
          } catch (error) {
            if (error instanceof FormRefusal)
              return render(c, quote, 400, { fieldErrors: error.fields, values, chosenLines });
            if (!(error instanceof ApiError)) throw error;
            if (error.status === 404) return notFound(c);
            const current = (await publicQuote(quote.token)) ?? quote;
            if (error.status === 409)
              return render(c, current, 409, { error: p.errors.notAllowed, values, chosenLines });
            const fieldErrors = fieldsOf(error, current, p);
            return render(c, current, 400, {
              ...(fieldErrors ? { fieldErrors } : { error: p.errors.other }),
              values,
              chosenLines,
            });
          }
          // Post/redirect/get: a reload does not send the form again.
          return c.redirect(`/q/${quote.token}?lang=${langOf(c, quote)}&hecho=${name}`, 303);
        },
      )
      // Any other address under /q/ (a trailing slash, a form that does not exist) is the page's
      // 404, in the visitor's language, not the API's JSON.
      .all('/q/*', (c) => notFound(c))
  );
}
