import { Hono } from 'hono';
import { invalidRequest, notFound } from '../errors.js';
import { decodeCursor } from '../http/cursor.js';
import { readJson } from '../http/json-body.js';
import { parse } from '../http/parse.js';
import { enumParam, intParam, onlyParams } from '../http/query.js';
import { isUuid } from '../ids.js';
import { endpoint } from '../middleware/endpoint.js';
import { INVOICE_STATES } from '../repositories/invoices.js';
import {
  fiscalHelperSchema,
  invoiceActionSchema,
  invoiceCreateSchema,
  invoiceHelperSchema,
} from '../schemas/invoices.js';
import {
  createInvoice,
  forceFiscalResult,
  getInvoiceDetail,
  listInvoicePage,
  runInvoiceAction,
  runInvoiceTestHelper,
} from '../services/invoices.js';
import type { AppDeps, AppEnv } from '../types.js';

const idParam = (id: string) => {
  if (!isUuid(id)) throw notFound('Invoice');
  return id;
};

/** Invoices (`/facturas`): create, list, detail, actions, and their test helpers. */
export function invoiceRoutes(deps: AppDeps) {
  const read = endpoint(deps, { resource: 'facturas', level: 'read' });
  const write = endpoint(deps, { resource: 'facturas', level: 'write' });
  const testHelper = endpoint(deps, { resource: 'facturas', level: 'write', testOnly: true });
  return new Hono<AppEnv>()
    .get('/facturas', read, async (c) => {
      const query = c.req.query();
      onlyParams(query, ['limit', 'cursor', 'estado', 'cliente_id']);
      if (query.cliente_id !== undefined && !isUuid(query.cliente_id))
        throw invalidRequest('cliente_id: must be a client id (UUID)');
      return c.json(
        await listInvoicePage(deps, c.get('auth'), {
          limit: intParam(query.limit, 'limit', 1, 200) ?? 20,
          beforeSeq: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
          estado: enumParam(query.estado, 'estado', INVOICE_STATES),
          clienteId: query.cliente_id,
        }),
      );
    })
    .post('/facturas', write, async (c) => {
      const body = parse(invoiceCreateSchema, await readJson(c));
      return c.json({ data: await createInvoice(deps, c.get('auth'), body) });
    })
    .get('/facturas/:id', read, async (c) => {
      return c.json({ data: await getInvoiceDetail(deps, c.get('auth'), idParam(c.req.param('id'))) });
    })
    .post('/facturas/:id', write, async (c) => {
      const id = idParam(c.req.param('id'));
      const body = parse(invoiceActionSchema, await readJson(c));
      const takesAmount = body.action === 'pay' || body.action === 'credit_note';
      if (!takesAmount && (body.monto !== undefined || body.fecha || body.metodo || body.referencia)) {
        throw invalidRequest(
          'monto, fecha, metodo and referencia: only the pay and credit_note actions take them',
        );
      }
      if (body.action === 'credit_note' && (body.fecha || body.metodo || body.referencia)) {
        throw invalidRequest('fecha, metodo and referencia: only the pay action takes them');
      }
      if (body.motivo !== undefined && body.action !== 'credit_note' && body.action !== 'void') {
        throw invalidRequest('motivo: only the credit_note and void actions take it');
      }
      return c.json({ data: await runInvoiceAction(deps, c.get('auth'), id, body) });
    })
    .post('/test_helpers/fiscal', testHelper, async (c) => {
      const body = parse(fiscalHelperSchema, await readJson(c));
      return c.json({ data: await forceFiscalResult(deps, c.get('auth'), body) });
    })
    .post('/test_helpers/facturas/:id', testHelper, async (c) => {
      const id = idParam(c.req.param('id'));
      const body = parse(invoiceHelperSchema, await readJson(c));
      return c.json({ data: await runInvoiceTestHelper(deps, c.get('auth'), id, body) });
    });
}
