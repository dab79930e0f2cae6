import { isCurrencyCode, LANGUAGES, maxChars } from '@svc/core';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import * as v from 'valibot';
import type { CatalogProduct, DraftNote, SkippedPhrase } from '../drafting/types.js';
import { invalidRequest } from '../errors.js';
import { readJson } from '../http/json-body.js';
import { parse } from '../http/parse.js';
import { endpoint } from '../middleware/endpoint.js';
import { listProducts } from '../repositories/products.js';
import type { KeyWithOrg } from '../services/key-store.js';
import { PUBLISHABLE_LIMITS } from '../services/limits.js';
import { catalogPrice } from '../services/pricing.js';
import type { AppDeps, AppEnv } from '../types.js';

/** Longest request text the drafters read. */
export const MAX_PROMPT = 2000;
/** Seconds between SSE comments that keep proxies from closing a quiet stream. */
export const HEARTBEAT_MS = 15_000;

export const draftSchema = v.strictObject({
  prompt: v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    // Characters as a person counts them: an emoji is one, not the two UTF-16 units of maxLength.
    maxChars(MAX_PROMPT, `must be at most ${MAX_PROMPT} characters`),
  ),
  locale: v.optional(v.picklist(LANGUAGES, `must be one of ${LANGUAGES.join(', ')}`)),
  currency: v.optional(v.pipe(v.string(), v.check(isCurrencyCode, 'must be an ISO 4217 currency code'))),
});

/** The active catalog of the key's mode, priced in `currency`. */
async function draftingCatalog(
  deps: AppDeps,
  { key, org }: KeyWithOrg,
  currency: string,
): Promise<CatalogProduct[]> {
  if (!org.currencies.includes(currency)) {
    throw invalidRequest(
      `currency: ${currency} is not a currency of this business (${org.currencies.join(', ')})`,
    );
  }
  const { records } = await listProducts(
    deps.db,
    { orgId: org.id, mode: key.mode },
    { limit: 2000, offset: 0, activeOnly: true },
  );
  return records.map((p) => ({
    id: p.id,
    sku: p.sku,
    nombre: p.nombre,
    unidad: p.unidad,
    precio_lista: catalogPrice(p, currency, org),
    moneda: currency,
    tax_rate: p.tax_rate,
    aliases: p.aliases,
    fraccionable: p.fraccionable,
  }));
}

/**
 * Drafting items from plain words: streamed to the widget (`POST /elements/ai-draft`, SSE) and as
 * JSON for server-side callers (`POST /cotizaciones/ia`, secret keys).
 */
export function draftRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .post(
      '/elements/ai-draft',
      endpoint(deps, {
        resource: 'elements',
        level: 'write',
        publishable: true,
        perIp: PUBLISHABLE_LIMITS.draft,
      }),
      async (c) => {
        const auth = c.get('auth');
        const body = parse(draftSchema, await readJson(c));
        if (auth.org.widget.ai_draft === false)
          throw invalidRequest('prompt: drafting is turned off for this business');
        const catalog = await draftingCatalog(deps, auth, body.currency ?? auth.org.currency);
        return streamSSE(c, async (stream) => {
          const controller = new AbortController();
          stream.onAbort(() => controller.abort());
          c.req.raw.signal?.addEventListener('abort', () => controller.abort());
          const heartbeat = setInterval(
            () => void stream.write(': keep-alive\n\n').catch(() => controller.abort()),
            HEARTBEAT_MS,
          );
          let count = 0;
          // What the drafter read as a request but did not draft ("una impresora"), and lines
          // it drafted in another unit (units → packs): the widget says so under the lines.
          const skipped: SkippedPhrase[] = [];
          const notes: DraftNote[] = [];
          try {
            const items = deps.drafter.draft({
              prompt: body.prompt,
              locale: body.locale,
              catalog,
              signal: controller.signal,
              onSkip: (phrase) => skipped.push(phrase),
              onNote: (note) => notes.push(note),
            });
            for await (const item of items) {
              if (controller.signal.aborted) break;
              await stream.writeSSE({ event: 'item', data: JSON.stringify(item), id: String(count) });
              count++;
            }
            if (!controller.signal.aborted)
              await stream.writeSSE({
                event: 'done',
                data: JSON.stringify({ count, skipped, ...(notes.length > 0 ? { notes } : {}) }),
              });
          } catch (error) {
            if (!controller.signal.aborted) {
              deps.logger.warn('drafting failed', { request_id: c.get('requestId'), error: String(error) });
              await stream.writeSSE({
                event: 'error',
                data: JSON.stringify({
                  error: 'Drafting failed part way; the lines already sent are valid.',
                  code: 'service_unavailable',
                }),
              });
            }
          } finally {
            clearInterval(heartbeat);
            if (controller.signal.aborted) c.set('answerCut', true);
          }
        });
      },
    )
    .post('/cotizaciones/ia', endpoint(deps, { resource: 'cotizaciones', level: 'write' }), async (c) => {
      const auth = c.get('auth');
      const body = parse(draftSchema, await readJson(c));
      const catalog = await draftingCatalog(deps, auth, body.currency ?? auth.org.currency);
      const items = [];
      const skipped: SkippedPhrase[] = [];
      const notes: DraftNote[] = [];
      for await (const item of deps.drafter.draft({
        prompt: body.prompt,
        locale: body.locale,
        catalog,
        signal: c.req.raw.signal,
        onSkip: (phrase) => skipped.push(phrase),
        onNote: (note) => notes.push(note),
      })) {
        items.push(item);
      }
      // As the stream's `done` says it: lines drafted in another unit (units → packs) are noted.
      return c.json({ data: { items, skipped, ...(notes.length > 0 ? { notes } : {}) } });
    });
}
