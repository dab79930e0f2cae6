import type { Queryable } from '../db/database.js';
import { eventCtes, NOTIFY_IF_JOBS, withoutCredentials } from './events.js';
import {
  folioSql,
  GENERATED_COLUMNS,
  type Generated,
  ITEM_COLUMNS,
  ITEM_RECORD,
  ITEM_VALUES,
  NEW_QUOTE_COLUMNS,
  NEW_QUOTE_RECORD,
  type NewQuote,
  type QuoteItemRow,
} from './quotes.js';

/** One quote of a batch: its id is chosen by the caller, to match the rows the batch returns. */
export interface BatchedQuote {
  id: string;
  quote: NewQuote;
  items: QuoteItemRow[];
  /** Data of its `quote.created` event, besides `id` and `folio`, which the statement adds. */
  eventData: Record<string, unknown>;
}

/** The per-quote columns of a batch, read from its one JSON parameter. */
const QUOTE_RECORD = `ord integer, id uuid, ${NEW_QUOTE_RECORD}, items jsonb, event jsonb`;

/**
 * Creates several quotes of one organization and mode in one statement, as {@link insertQuote}
 * creates one: their coupons' uses counted, consecutive folios in the order given, lines, and a
 * `quote.created` event each with its webhook deliveries. One statement means one lock of the
 * folio counter and of each coupon, and one executor start-up, for all of them.
 *
 * Only for known clients and coupons without a use limit: such a coupon's check (active, not
 * expired) is the same for every quote of the batch. A quote whose coupon fails it, or has a
 * limit by now, is left out and its id is missing from the result; the caller creates it on its
 * own, where the coupon is checked and counted one use at a time.
 *
 * @returns the generated columns of each quote created, by id.
 */
export async function insertQuoteBatch(
  db: Queryable,
  scope: { orgId: string; mode: string },
  quotes: readonly BatchedQuote[],
  now: Date,
): Promise<Map<string, Generated>> {
  const input = quotes.map(({ id, quote, items, eventData }, ord) => ({
    ord,
    id,
    ...quote,
    items,
    event: withoutCredentials(eventData),
  }));
  const rows = await db.query<Generated & { notified: unknown }>(INSERT_BATCH, [
    scope.orgId,
    scope.mode,
    now,
    JSON.stringify(input),
  ]);
  return new Map(rows.map(({ notified: _notified, ...generated }) => [generated.id, generated]));
}

// Built once, at load (the driver finds its prepared statement by the text).
const INSERT_BATCH = `WITH input AS (
       SELECT * FROM jsonb_to_recordset($4::jsonb) AS q(${QUOTE_RECORD})
     ), claimed AS (
       UPDATE coupons SET uses = uses + wanted.n
       FROM (SELECT coupon_id, count(*) AS n FROM input WHERE coupon_id IS NOT NULL GROUP BY coupon_id) wanted
       WHERE coupons.id = wanted.coupon_id AND coupons.active AND coupons.max_uses IS NULL
         AND (coupons.expires_at IS NULL OR coupons.expires_at > $3::timestamptz)
       RETURNING coupons.id
     ), accepted AS (
       SELECT input.*, row_number() OVER (ORDER BY ord) AS rank, count(*) OVER () AS n FROM input
       WHERE coupon_id IS NULL OR coupon_id IN (SELECT id FROM claimed)
     ), counter AS (
       INSERT INTO folio_counters (org_id, mode, last) SELECT $1, $2, count(*) FROM accepted HAVING count(*) > 0
       ON CONFLICT (org_id, mode) DO UPDATE SET last = folio_counters.last + EXCLUDED.last RETURNING last
     ), quote AS (
       INSERT INTO quotes (id, org_id, mode, folio, ${NEW_QUOTE_COLUMNS.join(', ')})
       SELECT accepted.id, $1, $2, ${folioSql('(counter.last - accepted.n + accepted.rank)')},
         ${NEW_QUOTE_COLUMNS.map((column) => `accepted.${column}`).join(', ')}
       FROM accepted, counter ORDER BY accepted.ord
       RETURNING ${GENERATED_COLUMNS}
     ), lines AS (
       INSERT INTO quote_items (quote_id, ${ITEM_COLUMNS})
       SELECT accepted.id, ${ITEM_VALUES}
       FROM accepted JOIN quote USING (id), jsonb_to_recordset(accepted.items) AS item(${ITEM_RECORD})
     ), created AS (
       SELECT quote.id, quote.seq, accepted.created_by, accepted.event || jsonb_build_object('id', quote.id, 'folio', quote.folio) AS data
       FROM quote JOIN accepted USING (id)
     ), ${eventCtes({ org: '$1', mode: '$2', actor: 'NULL' }, [
       {
         type: "'quote.created'",
         object: "'quote'",
         objectId: 'created.id',
         data: 'created.data',
         from: 'created',
         orderBy: 'created.seq',
         actor: 'created.created_by',
       },
     ])}
     SELECT quote.*, ${NOTIFY_IF_JOBS} AS notified FROM quote`;
