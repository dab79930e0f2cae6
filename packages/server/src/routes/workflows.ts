import { Hono } from 'hono';
import { notFound } from '../errors.js';
import { readJson } from '../http/json-body.js';
import { parse } from '../http/parse.js';
import { offsetPaging } from '../http/query.js';
import { isUuid } from '../ids.js';
import { endpoint } from '../middleware/endpoint.js';
import { workflowInvokeSchema } from '../schemas/requests.js';
import { invokeWorkflow, listWorkflowPage } from '../services/workflows.js';
import type { AppDeps, AppEnv } from '../types.js';

/** Workflows (design.md section 13): list and invoke. Restricted resource `workflows`. */
export function workflowRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/workflows', endpoint(deps, { resource: 'workflows', level: 'read' }), async (c) => {
      const query = c.req.query();
      return c.json(await listWorkflowPage(deps, c.get('auth'), offsetPaging(query)));
    })
    .post('/workflows/:id/invoke', endpoint(deps, { resource: 'workflows', level: 'write' }), async (c) => {
      const id = c.req.param('id');
      if (!isUuid(id)) throw notFound('Workflow');
      const { ids } = parse(workflowInvokeSchema, await readJson(c));
      return c.json({ data: await invokeWorkflow(deps, c.get('auth'), id, ids) });
    });
}
