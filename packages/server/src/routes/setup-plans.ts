import { Hono } from 'hono';
import { notFound } from '../errors.js';
import { readJson } from '../http/json-body.js';
import { parse } from '../http/parse.js';
import { isUuid } from '../ids.js';
import { endpoint } from '../middleware/endpoint.js';
import { setupPlanSchema } from '../schemas/setup-plans.js';
import { getSetupPlan, proposeSetupPlan } from '../services/setup-plans.js';
import type { AppDeps, AppEnv } from '../types.js';

/** Setup plans: an assistant proposes an account configuration; a person approves it. */
export function setupPlanRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .post(
      '/setup/plans',
      endpoint(deps, { resource: 'setup', level: 'write', secretOnly: true }),
      async (c) => {
        const body = parse(setupPlanSchema, await readJson(c));
        return c.json({ data: await proposeSetupPlan(deps, c.get('auth'), body) });
      },
    )
    .get('/setup/plans/:id', endpoint(deps, { resource: 'setup', level: 'read' }), async (c) => {
      const id = c.req.param('id');
      if (!isUuid(id)) throw notFound('Setup plan');
      return c.json({ data: await getSetupPlan(deps, c.get('auth'), id) });
    });
}
