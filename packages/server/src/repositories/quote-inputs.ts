import type { Queryable } from '../db/database.js';
import { memoize } from '../memo.js';
import { checkCount, type FoldedCounter, foldedCounterSql } from '../middleware/rate-limit.js';
import {
  type ClientIdentity,
  type ClientKey,
  type ClientRecord,
  clientCountSql,
  clientKey,
  clientSql,
  clientSqlValue,
} from './clients.js';
import { type CouponRow, couponByCodeSql } from './coupons.js';
import { type ProductRow, productMap, productsByIdsSql } from './products.js';

/** What creating a quote (or previewing a basket) reads before it prices and writes. */
export interface QuoteInputs {
  /** The client the request names, when it names one and it exists. */
  client: ClientRecord | undefined;
  /** How many clients the organization has in this mode; only counted when the client is new. */
  clientCount: number | null;
  products: Map<string, ProductRow>;
  /** The coupon by its code, when one was asked for and exists. */
  coupon: CouponRow | undefined;
  /**
   * The row versions (`xmin`) of the client and the products read: a later statement can tell by
   * them whether a row changed since (see `services/inputs-memory.ts`).
   */
  versions: RowVersions;
}

/** Row versions of what a quote was priced with: the client's and each product's, by id. */
export interface RowVersions {
  client: string | null;
  products: Map<string, string>;
}

/** The SQL of a row's version: its `xmin`, which every update and every new row changes. */
const VERSION = ', xmin::text AS version';

/**
 * Reads the client, the catalog products and the coupon a quote creation needs (an invoice's
 * creation reads the same, without a coupon), in one statement: every round trip to the database
 * costs the server more than the reading itself, so the same statement also counts (or reads) the
 * request's rate counters on PostgreSQL, and checks them. The quote's own statement later counts
 * the coupon's use and checks it again under its row lock.
 */
export async function readQuoteInputs(
  db: Queryable,
  scope: { orgId: string; mode: string },
  request: { client?: ClientIdentity; productIds: string[]; couponCode: string | undefined },
  counters: readonly FoldedCounter[] = [],
): Promise<QuoteInputs> {
  const params: unknown[] = [
    scope.orgId,
    scope.mode,
    request.client ? clientSqlValue(request.client) : null,
    request.productIds,
    request.couponCode ?? null,
  ];
  for (const counter of counters) params.push(counter.bucket, counter.windowStart);
  const [row] = await db.query<
    {
      client: Versioned<ClientRecord> | null;
      client_count: number | null;
      products: Versioned<ProductRow>[];
      coupon: (Omit<CouponRow, 'expires_at'> & { expires_at: string | null }) | null;
    } & Record<`count_${number}`, number>
  >(inputsSql(request.client, counters), params);
  // Each limit is checked before the caller prices or writes anything: its refusal is thrown here.
  for (const [i, counter] of counters.entries()) checkCount(counter, Number(row![`count_${i}`]));
  const coupon = row!.coupon;
  const versions: RowVersions = { client: null, products: new Map() };
  let client: ClientRecord | undefined;
  if (row!.client) {
    const { version, ...record } = row!.client;
    client = record;
    versions.client = version;
  }
  const products = row!.products.map(({ version, ...product }) => {
    versions.products.set(product.id, version);
    return product;
  });
  return {
    client,
    clientCount: row!.client_count,
    products: productMap(products),
    // JSON carries the timestamp as text; the coupon checks compare Dates.
    coupon: coupon
      ? { ...coupon, expires_at: coupon.expires_at ? new Date(coupon.expires_at) : null }
      : undefined,
    versions,
  };
}

type Versioned<Row> = Row & { version: string };

// The statement's text for each shape of request, built once: the driver finds its prepared
// statement by the text, and hashing a fresh string of some kilobytes on every request showed.
// A shape is how the client is looked up and, per counter, `+` (counts) or `=` (reads).
const statementFor = memoize((shape: string) => {
  const [by, increments] = shape.split('|') as [ClientKey | 'none', string];
  return buildInputsSql(
    by === 'none' ? undefined : by,
    [...increments].map((sign) => sign === '+'),
  );
});

function inputsSql(client: ClientIdentity | undefined, counters: readonly FoldedCounter[]): string {
  const signs = counters.map((counter) => (counter.increment ? '+' : '=')).join('');
  return statementFor(`${client ? clientKey(client) : 'none'}|${signs}`);
}

function buildInputsSql(by: ClientKey | undefined, increments: boolean[]): string {
  // A preview names no client: an empty one, never counted.
  const ctes = [
    by
      ? `client AS (${clientSql('$1', '$2', by, '$3', VERSION)})`
      : 'client AS (SELECT NULL::text AS unused WHERE $3::text IS NULL AND false)',
  ];
  const counts = increments.map((increment, i) => {
    const sql = foldedCounterSql(increment, `counter_${i}`, {
      bucket: `$${6 + 2 * i}::text`,
      windowStart: `$${7 + 2 * i}::bigint`,
    });
    if (sql.cte) ctes.push(sql.cte);
    return `, coalesce(${sql.count}, 0) AS count_${i}`;
  });
  return `WITH ${ctes.join(', ')}
     SELECT (SELECT row_to_json(client) FROM client) AS client,
       ${by ? `CASE WHEN NOT EXISTS (SELECT 1 FROM client) THEN (${clientCountSql('$1', '$2')}) END` : 'NULL::int'} AS client_count,
       (SELECT coalesce(json_agg(p), '[]') FROM (${productsByIdsSql('$1', '$2', '$4', VERSION)}) p) AS products,
       (SELECT row_to_json(k) FROM (${couponByCodeSql('$1', '$2', '$5')}) k) AS coupon${counts.join('')}`;
}
