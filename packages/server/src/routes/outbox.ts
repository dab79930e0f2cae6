import { Hono } from 'hono';
import { offsetMeta, offsetPaging } from '../http/query.js';
import { endpoint } from '../middleware/endpoint.js';
import type { AppDeps, AppEnv } from '../types.js';

/**
 * `GET /emails`: the e-mails the service wrote to clients, newest first, with what happened to
 * each (`sent`, `failed`, or `skipped` and why). In test mode nothing is ever sent: this is where
 * the seller reads what the client would have received.
 */
export function outboxRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get(
    '/emails',
    endpoint(deps, { resource: 'cotizaciones', level: 'read' }),
    async (c) => {
      const { key, org } = c.get('auth');
      const page = offsetPaging(c.req.query());
      // The e-mails about invoices (every one not about a quote) carry the invoice's page link, a
      // credential: a restricted key reads them only with its own permission to read invoices.
      const invoices = key.kind !== 'restricted' || !!key.permissions?.facturas;
      const where = `org_id = $1 AND mode = $2 ${invoices ? '' : 'AND quote_id IS NOT NULL'}`;
      const [rows, [count]] = await Promise.all([
        deps.db.query(
          `SELECT id, quote_id AS cotizacion_id, to_email AS "to", subject, body, status, skipped_reason AS skipped,
                  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
           FROM email_outbox WHERE ${where} ORDER BY created_at DESC, id LIMIT $3 OFFSET $4`,
          [org.id, key.mode, page.limit, page.offset],
        ),
        deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM email_outbox WHERE ${where}`, [
          org.id,
          key.mode,
        ]),
      ]);
      return c.json({ data: rows, meta: offsetMeta(page, count?.n ?? 0) });
    },
  );
}
