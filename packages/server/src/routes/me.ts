import { Hono } from 'hono';
import { endpoint } from '../middleware/endpoint.js';
import type { AppDeps, AppEnv } from '../types.js';

/** `GET /me`: the organization, scope and mode of the calling key. */
export function meRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get('/me', endpoint(deps, { resource: 'me', level: 'read' }), (c) => {
    const { key, org } = c.get('auth');
    return c.json({
      data: {
        org: { id: org.id, nombre: org.nombre, plan: org.plan },
        scope: key.scope,
        mode: key.mode,
        key: { id: key.id, kind: key.kind, display: key.display, api_version: key.api_version },
      },
    });
  });
}
