import type { Queryable } from '../db/database.js';

/** A payment registered on a quote. */
export interface QuotePaymentRow {
  id: string;
  quote_id: string;
  tipo: 'anticipo' | 'cuota' | 'saldo';
  numero_cuota: number | null;
  monto: number;
  fecha: string;
  payment_method: string | null;
  referencia: string | null;
  created_at: string;
}

/** A promise to pay a quote. */
export interface PromiseRow {
  id: string;
  quote_id: string;
  org_id: string;
  mode: 'test' | 'live';
  fecha_promesa: string;
  monto: number;
  abonado: number;
  estado: 'pending' | 'kept' | 'broken';
  created_at: string;
}

const PAYMENT_COLUMNS = `id, quote_id, tipo, numero_cuota, monto, to_char(fecha, 'YYYY-MM-DD') AS fecha, payment_method,
  referencia, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;
const PROMISE_COLUMNS = `id, quote_id, org_id, mode, to_char(fecha_promesa, 'YYYY-MM-DD') AS fecha_promesa, monto, abonado,
  estado, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;

/** Records a payment and adds it to the quote's `pagado`; the caller holds the quote's row lock. */
export async function insertQuotePayment(
  tx: Queryable,
  payment: Omit<QuotePaymentRow, 'id' | 'created_at'> & { org_id: string; mode: string; actor: string },
): Promise<QuotePaymentRow> {
  const [row] = await tx.query<QuotePaymentRow>(
    `WITH paid AS (UPDATE quotes SET pagado = pagado + $6, updated_at = now() WHERE id = $1)
     INSERT INTO quote_payments (quote_id, org_id, mode, tipo, numero_cuota, monto, fecha, payment_method, referencia, actor)
     VALUES ($1, $2, $3, $4, $5, $6, $7::date, $8, $9, $10)
     RETURNING ${PAYMENT_COLUMNS}`,
    [
      payment.quote_id,
      payment.org_id,
      payment.mode,
      payment.tipo,
      payment.numero_cuota,
      payment.monto,
      payment.fecha,
      payment.payment_method,
      payment.referencia,
      payment.actor,
    ],
  );
  return row!;
}

/**
 * Adds a payment on the quote's invoice to the quote's `pagado`: the invoice carries the quote's
 * payments and total, so both show one balance. The payment itself is the invoice's record.
 */
export async function addInvoicePaymentToQuote(tx: Queryable, quoteId: string, monto: number): Promise<void> {
  await tx.query('UPDATE quotes SET pagado = pagado + $2, updated_at = now() WHERE id = $1', [
    quoteId,
    monto,
  ]);
}

/** The payments of a quote, oldest first. */
export function findQuotePayments(db: Queryable, quoteId: string): Promise<QuotePaymentRow[]> {
  return db.query<QuotePaymentRow>(
    `SELECT ${PAYMENT_COLUMNS} FROM quote_payments WHERE quote_id = $1 ORDER BY seq`,
    [quoteId],
  );
}

/** The promises of a quote, oldest first. */
export function findQuotePromises(db: Queryable, quoteId: string): Promise<PromiseRow[]> {
  return db.query<PromiseRow>(
    `SELECT ${PROMISE_COLUMNS} FROM payment_promises WHERE quote_id = $1 ORDER BY seq`,
    [quoteId],
  );
}

export async function insertPromise(
  tx: Queryable,
  promise: Pick<PromiseRow, 'quote_id' | 'org_id' | 'mode' | 'fecha_promesa' | 'monto'> & { actor: string },
): Promise<PromiseRow> {
  const [row] = await tx.query<PromiseRow>(
    `INSERT INTO payment_promises (quote_id, org_id, mode, fecha_promesa, monto, actor)
     VALUES ($1, $2, $3, $4::date, $5, $6) RETURNING ${PROMISE_COLUMNS}`,
    [promise.quote_id, promise.org_id, promise.mode, promise.fecha_promesa, promise.monto, promise.actor],
  );
  return row!;
}

/**
 * Adds a payment dated `fecha` to the quote's pending promises due on or after that date and
 * marks kept those it completes; returns the ones kept now. The caller holds the quote's lock.
 */
export function applyPaymentToPromises(
  tx: Queryable,
  quoteId: string,
  monto: number,
  fecha: string,
): Promise<PromiseRow[]> {
  return tx.query<PromiseRow>(
    `WITH applied AS (
       UPDATE payment_promises SET abonado = abonado + $2,
         estado = CASE WHEN abonado + $2 >= monto THEN 'kept' ELSE estado END,
         decided_at = CASE WHEN abonado + $2 >= monto THEN now() END
       WHERE quote_id = $1 AND estado = 'pending' AND fecha_promesa >= $3::date
       RETURNING *
     )
     SELECT ${PROMISE_COLUMNS} FROM applied WHERE estado = 'kept' ORDER BY seq`,
    [quoteId, monto, fecha],
  );
}

/** Marks kept every pending promise of a quote (it was paid in full outside the service). */
export function keepAllPromises(tx: Queryable, quoteId: string): Promise<PromiseRow[]> {
  return tx.query<PromiseRow>(
    `WITH kept AS (
       UPDATE payment_promises SET estado = 'kept', decided_at = now()
       WHERE quote_id = $1 AND estado = 'pending' RETURNING *
     )
     SELECT ${PROMISE_COLUMNS} FROM kept ORDER BY seq`,
    [quoteId],
  );
}

/**
 * Marks broken the pending promises whose date is before `today` (all of one quote's, whatever
 * their date, with `quoteId`: the test helper). Each promise is broken exactly once, even with
 * several processes running the job, by the UPDATE's condition.
 */
export function breakPromises(
  tx: Queryable,
  filter: { today: string } | { quoteId: string },
): Promise<PromiseRow[]> {
  const [condition, param] =
    'quoteId' in filter ? ['quote_id = $1', filter.quoteId] : ['fecha_promesa < $1::date', filter.today];
  return tx.query<PromiseRow>(
    `WITH broken AS (
       UPDATE payment_promises SET estado = 'broken', decided_at = now()
       WHERE estado = 'pending' AND ${condition} RETURNING *
     )
     SELECT ${PROMISE_COLUMNS} FROM broken ORDER BY seq`,
    [param],
  );
}
