// Invoices and collections in `npm run bench` (design.md section 16): invoice creation + finalize
// (sandbox stamping) next to the bare four-statement transaction, and GET /cobranza over a book of
// 10,000 open invoices.
import type autocannon from 'autocannon';
import { openDatabase } from '../packages/server/src/db/open.js';

/** Open invoices in the book GET /cobranza reads, and the clients they are spread over. */
export const OPEN_INVOICES = 10_000;
/** design.md section 16: GET /cobranza over that book answers within 50 ms at the 99th percentile. */
export const COLLECTIONS_P99_MS = 50;
const CLIENTS = 500;

/**
 * Writes 10,000 open invoices of the seeded organization's test mode, over 500 clients, due
 * between 120 days ago and 30 days from now, with what a real book has (some partly paid, the
 * overdue ones already reminded), in one statement each. Run after `seed` and before the server starts: PGlite has one process.
 */
export async function seedReceivables(location: { databaseUrl?: string; dataDir?: string }) {
  const db = await openDatabase(location);
  try {
    const [org] = await db.query<{ id: string }>('SELECT id FROM orgs ORDER BY created_at LIMIT 1');
    await db.query(
      `INSERT INTO clients (org_id, mode, empresa, email)
       SELECT $1, 'test', 'Cartera ' || i, 'cartera' || i || '@bench.example' FROM generate_series(1, $2::int) i`,
      [org!.id, CLIENTS],
    );
    await db.query(
      `WITH c AS (SELECT id, empresa, row_number() OVER (ORDER BY id) AS n FROM clients
                  WHERE org_id = $1 AND mode = 'test' AND email LIKE 'cartera%@bench.example')
       INSERT INTO invoices (org_id, mode, numero, token, estado, estado_fiscal, pais, tipo, moneda, moneda_fiscal,
         subtotal, descuento, impuestos, total, pagado, emitida, vence, dias_credito, cliente_id,
         cliente_nombre, language, created_by, overdue_at)
       SELECT $1, 'test', 'B-' || lpad(i::text, 6, '0'), 'bench-' || i, 'open', 'not_applicable', 'MX',
         'commercial', 'MXN', 'MXN', 1000, 0, 160, 1160, CASE WHEN i % 4 = 0 THEN 500 ELSE 0 END,
         current_date - 150, current_date + 30 - (i % 150), 0, c.id, c.empresa, 'es', 'bench',
         -- A book as it stands once the overdue job has been through it: the bench measures the
         -- routes, not a first pass of the job over 8,000 invoices at once.
         CASE WHEN 30 - (i % 150) < 0 THEN now() END
       FROM generate_series(1, $2::int) i JOIN c ON c.n = 1 + i % $3`,
      [org!.id, OPEN_INVOICES, CLIENTS],
    );
    await db.query('ANALYZE invoices');
  } finally {
    await db.close();
  }
}

/** An invoice for a new client each, as `POST /facturas` takes it. */
export const invoiceBody = (visitor: string) =>
  JSON.stringify({
    cliente: { empresa: `Cliente ${visitor}`, email: `${visitor}@bench.example` },
    items: [{ descripcion: 'Soporte mensual', cantidad: 1, precio_unitario: 4500, clave_sat: '81111800' }],
  });

/**
 * autocannon's options for invoices created and finalized in pairs on every connection: a
 * `POST /facturas` for a new client, then `POST /facturas/{id}` `finalize` (sandbox stamping in
 * test mode) of the invoice it answered. Two requests make one invoice: halve the rate.
 */
export function invoicePairs(key: string, newId: () => string): Partial<autocannon.Options> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  type Context = { invoiceId?: string };
  return {
    requests: [
      {
        method: 'POST',
        path: '/api/v1/facturas',
        headers,
        setupRequest: (request) => ({ ...request, body: invoiceBody(newId()) }),
        onResponse: (_status, body, context) => {
          (context as Context).invoiceId = (JSON.parse(body) as { data: { id: string } }).data.id;
        },
      },
      {
        method: 'POST',
        headers,
        body: JSON.stringify({ action: 'finalize' }),
        setupRequest: (request, context) => ({
          ...request,
          path: `/api/v1/facturas/${(context as Context).invoiceId}`,
        }),
      },
    ],
  };
}
