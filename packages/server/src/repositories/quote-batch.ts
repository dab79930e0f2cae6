import type { Queryable } from '../db/database.js';
import { IDEMPOTENCY_TTL_HOURS } from '../middleware/idempotency.js';
import type { CounterClaim } from '../middleware/rate-limit.js';
import { clientCountSql, type NewClientRow } from './clients.js';
import type { CouponTerms } from './coupons.js';
import { eventCtes, NOTIFY_IF_JOBS, withoutCredentials } from './events.js';
import type { RowVersions } from './quote-inputs.js';
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
import { inScope } from './scope-sql.js';

/** One quote of a batch: its id is chosen by the caller, to match the rows the batch returns. */
export interface BatchedQuote {
  id: string;
  quote: NewQuote;
  items: QuoteItemRow[];
  /** Data of its `quote.created` event, besides `id` and `folio`, which the statement adds. */
  eventData: Record<string, unknown>;
  /** The values of its coupon (`quote.coupon_id`) it was priced with: left out if they changed. */
  coupon: CouponTerms | null;
  /**
   * For a quote priced with inputs from memory, not read for it: the versions of its client and
   * products it was priced with. It is left out when any of them changed or is gone.
   */
  versions?: RowVersions;
  /** Rate counters the statement counts (or reads) for this quote: left out when one is over. */
  counters?: readonly CounterClaim[];
  /** The client to create with the quote (its `cliente_id`), and its `client.created` event's data. */
  newClient?: { row: NewClientRow; eventData: Record<string, unknown> } | undefined;
  /** The response of an idempotent call, stored with the quote (see {@link StoredResponse}). */
  stored?: StoredResponse | undefined;
  /**
   * For a new client priced from memory, not looked up: left out when the organization already has
   * a client by that e-mail (or, without one, by that name), or when the batch's new clients would
   * take the organization past `limit` (its plan's; null: none), so that the caller reads afresh.
   */
  presumedNew?: { by: 'email' | 'empresa'; value: string; limit: number | null } | undefined;
}

/**
 * An idempotent call's response, stored by the statement that creates its quote, in the same
 * commit: `body` holds `folioToken` (a JSON string) where the folio goes, which the statement
 * replaces with the folio it assigns, as JSON, and the caller the same way in what it sends.
 */
export interface StoredResponse {
  keyId: string;
  idempotencyKey: string;
  fingerprint: string;
  status: number;
  body: string;
  type: string;
  folioToken: string;
}

/**
 * The lane of an organization's creations in one mode: its batch statements take one connection
 * and run in the order sent (`QueryOptions.lane`), and the quote writer queues them by it.
 */
export const creationLane = (orgId: string, mode: string) => `${orgId}:${mode}`;

/** The primary key a stored response breaks when a duplicate's response was stored first. */
export const STORED_RESPONSE_KEY = 'idempotency_keys_pkey';

/** What became of one quote of a batch. */
export interface BatchOutcome {
  /** Its generated columns, when it was created. */
  created: Generated | undefined;
  /**
   * For a quote left out with an idempotent call's response to store: a response was already
   * stored under its key (a duplicate's, or an earlier one's), which the caller replays.
   */
  storedAlready: boolean;
  /** What each of its counters counted (or read), in the order given. */
  counts: number[];
}

/** The per-quote columns of a batch, read from its one JSON parameter. */
const QUOTE_RECORD = `ord integer, id uuid, ${NEW_QUOTE_RECORD}, items jsonb, event jsonb, coupon_tipo text,
  coupon_valor numeric, coupon_moneda text, client_version text, product_versions jsonb, counters jsonb,
  new_client jsonb, client_event jsonb, stored jsonb, presumed_email text, presumed_empresa text,
  client_limit bigint`;

/**
 * Creates several quotes of one organization and mode in one statement, as {@link insertQuote}
 * creates one: their coupons' uses counted, consecutive folios in the order given, lines, and a
 * `quote.created` event each with its webhook deliveries. One statement means one lock of the
 * folio counter and of each coupon, and one executor start-up, for all of them.
 *
 * A new client is created with its quote, and an idempotent call's response stored with it. A
 * coupon's check (active, not expired, uses left for all the batch's quotes that apply it) is the
 * same for every quote of the batch. A quote is left out, its `created` missing,
 * when its coupon fails that check or has other values than it was priced with,
 * when a counter of its own is over, when a row it was priced with from memory changed, when a
 * client presumed new exists or would pass the plan's limit, or when a response is already stored
 * under its idempotency key (`storedAlready`); the caller creates it on its own, or reads afresh,
 * or refuses it, or replays. An expired stored response under its key is deleted and replaced.
 *
 * @returns what became of each quote, by id.
 */
export async function insertQuoteBatch(
  db: Queryable,
  scope: { orgId: string; mode: string },
  quotes: readonly BatchedQuote[],
  now: Date,
): Promise<Map<string, BatchOutcome>> {
  const input = quotes.map(
    ({ id, quote, items, eventData, coupon, versions, counters, newClient, stored, presumedNew }, ord) => ({
      ord,
      id,
      items,
      event: withoutCredentials(eventData),
      coupon_tipo: coupon?.tipo ?? null,
      coupon_valor: coupon?.valor ?? null,
      coupon_moneda: coupon?.moneda ?? null,
      client_version: versions?.client ?? null,
      product_versions: versions ? Object.fromEntries(versions.products) : null,
      counters: (counters ?? []).map((counter, i) => ({
        i,
        bucket: counter.bucket,
        window_start: counter.windowStart,
        increment: counter.increment,
        allowed: counter.allowed,
      })),
      new_client: newClient?.row ?? null,
      client_event: newClient ? withoutCredentials(newClient.eventData) : null,
      stored: stored
        ? {
            key_id: stored.keyId,
            idempotency_key: stored.idempotencyKey,
            fingerprint: stored.fingerprint,
            status: stored.status,
            body: stored.body,
            type: stored.type,
            folio_token: stored.folioToken,
          }
        : null,
      presumed_email: presumedNew?.by === 'email' ? presumedNew.value : null,
      presumed_empresa: presumedNew?.by === 'empresa' ? presumedNew.value : null,
      client_limit: presumedNew?.limit ?? null,
      // Last: in V8 a spread followed by more properties copies them one by one, ~6 µs a quote.
      ...quote,
    }),
  );
  const rows = await db.query<Generated & { counts: number[]; stored_already: boolean; notified: unknown }>(
    INSERT_BATCH,
    [scope.orgId, scope.mode, now, JSON.stringify(input)],
    { genericPlan: true, lane: creationLane(scope.orgId, scope.mode) },
  );
  return new Map(
    rows.map(({ notified: _notified, counts, stored_already, ...generated }) => [
      generated.id,
      {
        created: generated.seq === null ? undefined : generated,
        storedAlready: stored_already,
        counts: counts.map(Number),
      },
    ]),
  );
}

/**
 * The SQL of 1 when a live (unexpired) stored response is under the key of `stored`, a JSON
 * column, else null. A scalar subquery, not EXISTS: EXISTS may be planned as a hash of the whole
 * table, cheaper to a planner that expects 100 quotes in the JSON while the table is small, and a
 * connection's generic plan keeps that as the table grows.
 */
const liveStoredSql = (stored: string) =>
  `(SELECT 1 FROM idempotency_keys k
    WHERE k.key_id = (${stored}->>'key_id')::uuid AND k.idempotency_key = ${stored}->>'idempotency_key'
      AND k.created_at >= now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS}) LIMIT 1)`;

// Built once, at load (the driver finds its prepared statement by the text).
// Rows several statements may lock at once (rate counters, coupons) are locked in one order, by
// key, so that two statements under way at once (the writer's pipeline, or two processes) queue
// for each other instead of deadlocking.
// `counted` adds each window's requests of the batch at once (one statement cannot update a row
// twice), and `counts` gives each quote the count it would have had counted alone, in order.
// `eligible` looks each version, and each client presumed new, up with a scalar subquery: as
// EXISTS, the planner (assuming 100 quotes in the JSON) hashed the whole clients and products
// tables instead; and a client presumed new is looked up with its scope as `inScope` writes it, or
// the planner, with statistics from before a burst of new clients, read all the organization's
// clients through their list index to find none (1–2 ms a quote).
const INSERT_BATCH = `WITH input AS (
       SELECT * FROM jsonb_to_recordset($4::jsonb) AS q(${QUOTE_RECORD})
     ), tally AS (
       SELECT input.ord, c.* FROM input,
         jsonb_to_recordset(input.counters) AS c(i integer, bucket text, window_start bigint, increment boolean, allowed integer)
     ), counted AS (
       INSERT INTO rate_counters (bucket, window_start, count)
       SELECT bucket, window_start, count(*) FROM tally WHERE increment GROUP BY bucket, window_start
       ORDER BY bucket, window_start
       ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_counters.count + EXCLUDED.count
       RETURNING bucket, window_start, count
     ), counts AS (
       SELECT tally.ord, tally.i, tally.allowed,
         CASE WHEN tally.increment
           THEN counted.count - count(*) OVER same_window + row_number() OVER (same_window ORDER BY tally.ord)
           ELSE coalesce((SELECT r.count FROM rate_counters r
                          WHERE r.bucket = tally.bucket AND r.window_start = tally.window_start), 0)
         END AS count
       FROM tally LEFT JOIN counted
         ON tally.increment AND counted.bucket = tally.bucket AND counted.window_start = tally.window_start
       WINDOW same_window AS (PARTITION BY tally.bucket, tally.window_start, tally.increment)
     ), eligible AS (
       SELECT input.* FROM input
       WHERE NOT EXISTS (SELECT 1 FROM counts WHERE counts.ord = input.ord AND counts.count > counts.allowed)
         AND (input.client_version IS NULL
           OR input.client_version = (SELECT xmin::text FROM clients WHERE clients.id = input.cliente_id))
         AND (input.product_versions IS NULL OR NOT EXISTS (
           SELECT 1 FROM jsonb_each_text(input.product_versions) AS v(id, version)
           WHERE v.version IS DISTINCT FROM (SELECT xmin::text FROM products WHERE products.id = v.id::uuid)))
         AND (input.presumed_email IS NULL OR (SELECT 1 FROM clients
           WHERE lower(clients.email) = lower(input.presumed_email) AND ${inScope('$1', '$2')} LIMIT 1) IS NULL)
         AND (input.presumed_empresa IS NULL OR (SELECT 1 FROM clients
           WHERE lower(clients.empresa) = lower(input.presumed_empresa) AND ${inScope('$1', '$2')} LIMIT 1) IS NULL)
         AND (input.client_limit IS NULL OR (${clientCountSql('$1', '$2')})
           + (SELECT count(*) FROM input i WHERE i.new_client IS NOT NULL) <= input.client_limit)
         AND (input.stored IS NULL OR ${liveStoredSql('input.stored')} IS NULL)
     ), claimed AS (
       UPDATE coupons SET uses = uses + wanted.n
       FROM (SELECT coupon_id, coupon_tipo, coupon_valor, coupon_moneda, count(*) AS n FROM eligible
             WHERE coupon_id IS NOT NULL GROUP BY coupon_id, coupon_tipo, coupon_valor, coupon_moneda
             ORDER BY coupon_id) wanted
       WHERE coupons.id = wanted.coupon_id AND coupons.tipo = wanted.coupon_tipo AND coupons.valor = wanted.coupon_valor
         AND coupons.moneda IS NOT DISTINCT FROM wanted.coupon_moneda
         AND coupons.active AND (coupons.max_uses IS NULL OR coupons.uses + wanted.n <= coupons.max_uses)
         AND (coupons.expires_at IS NULL OR coupons.expires_at > $3::timestamptz)
       RETURNING coupons.id, coupons.tipo, coupons.valor, coupons.moneda
     ), accepted AS (
       SELECT eligible.*, row_number() OVER (ORDER BY ord) AS rank, count(*) OVER () AS n FROM eligible
       WHERE coupon_id IS NULL OR EXISTS (
         SELECT 1 FROM claimed WHERE claimed.id = coupon_id AND claimed.tipo = coupon_tipo
           AND claimed.valor = coupon_valor AND claimed.moneda IS NOT DISTINCT FROM coupon_moneda)
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
     ), new_client AS (
       INSERT INTO clients (id, org_id, mode, empresa, contacto, email, telefono, rfc, fiscal, terminos, country_code)
       SELECT c.id, $1, $2, c.empresa, c.contacto, c.email, c.telefono, c.rfc, c.fiscal, c.terminos, c.country_code
       FROM accepted JOIN quote USING (id), jsonb_to_record(accepted.new_client) AS c(id uuid, empresa text,
         contacto text, email text, telefono text, rfc text, fiscal jsonb, terminos text, country_code text)
       WHERE accepted.new_client IS NOT NULL
       RETURNING id
     ), purged AS (
       DELETE FROM idempotency_keys k USING accepted
       WHERE accepted.stored IS NOT NULL AND k.key_id = (accepted.stored->>'key_id')::uuid
         AND k.idempotency_key = accepted.stored->>'idempotency_key'
         AND k.created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
       RETURNING 1
     ), stored AS (
       INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, state, response_status, response_body, response_type)
       SELECT (s.stored->>'key_id')::uuid, s.stored->>'idempotency_key', s.stored->>'fingerprint', 'done',
         (s.stored->>'status')::integer, replace(s.stored->>'body', s.stored->>'folio_token', to_json(quote.folio)::text),
         s.stored->>'type'
       FROM accepted s JOIN quote USING (id)
       -- After the purge, which frees an expired response's key for this one.
       WHERE s.stored IS NOT NULL AND (SELECT count(*) FROM purged) >= 0
     ), created AS (
       SELECT quote.id, quote.seq, accepted.created_by, accepted.event || jsonb_build_object('id', quote.id, 'folio', quote.folio) AS data
       FROM quote JOIN accepted USING (id)
     ), ${eventCtes({ org: '$1', mode: '$2', actor: 'NULL' }, [
       {
         type: "'client.created'",
         object: "'client'",
         objectId: 'new_client.id',
         data: 'accepted.client_event',
         from: 'new_client JOIN accepted ON accepted.cliente_id = new_client.id',
         orderBy: 'accepted.ord',
         actor: 'accepted.created_by',
       },
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
     SELECT input.id, quote.seq, quote.folio, quote.created_at,
       (SELECT coalesce(json_agg(counts.count ORDER BY counts.i), '[]') FROM counts WHERE counts.ord = input.ord) AS counts,
       quote.seq IS NULL AND input.stored IS NOT NULL AND ${liveStoredSql('input.stored')} IS NOT NULL AS stored_already,
       ${NOTIFY_IF_JOBS} AS notified
     FROM input LEFT JOIN quote ON quote.id = input.id`;
