import { isCurrencyCode } from '@svc/core';
import { Hono } from 'hono';
import { invalidRequest } from '../errors.js';
import { intParam, onlyParams } from '../http/query.js';
import { isUuid } from '../ids.js';
import { endpoint } from '../middleware/endpoint.js';
import { getCollections } from '../services/collections.js';
import type { AppDeps, AppEnv } from '../types.js';

/** GET /cobranza: accounts receivable (read). Restricted resource `cobranza`. */
export function collectionsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get(
    '/cobranza',
    endpoint(deps, { resource: 'cobranza', level: 'read' }),
    async (c) => {
      const query = c.req.query();
      onlyParams(query, ['limit', 'offset', 'cliente_id', 'moneda']);
      if (query.cliente_id !== undefined && !isUuid(query.cliente_id))
        throw invalidRequest('cliente_id: must be a client id (UUID)');
      if (query.moneda !== undefined && !isCurrencyCode(query.moneda))
        throw invalidRequest('moneda: must be an ISO 4217 currency code like MXN');
      return c.json(
        await getCollections(deps, c.get('auth'), {
          limit: intParam(query.limit, 'limit', 1, 200) ?? 20,
          offset: intParam(query.offset, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0,
          clienteId: query.cliente_id,
          moneda: query.moneda,
        }),
      );
    },
  );
}
