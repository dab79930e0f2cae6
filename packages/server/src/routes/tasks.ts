import { Hono } from 'hono';
import { invalidRequest, notFound } from '../errors.js';
import { readJson } from '../http/json-body.js';
import { parse } from '../http/parse.js';
import { enumParam, offsetPaging } from '../http/query.js';
import { isUuid } from '../ids.js';
import { endpoint } from '../middleware/endpoint.js';
import { taskActionSchema, taskCreateSchema } from '../schemas/requests.js';
import { completeTaskAction, createTask, getTask, listTaskPage } from '../services/tasks.js';
import type { AppDeps, AppEnv } from '../types.js';

const idParam = (id: string) => {
  if (!isUuid(id)) throw notFound('Task');
  return id;
};
const uuidParam = (value: string | undefined, name: string) => {
  if (value !== undefined && !isUuid(value)) throw invalidRequest(`${name}: must be an id (UUID)`);
  return value;
};

/** Tasks (design.md section 13): create, list, detail, complete. Restricted resource `tareas`. */
export function taskRoutes(deps: AppDeps) {
  const read = endpoint(deps, { resource: 'tareas', level: 'read' });
  const write = endpoint(deps, { resource: 'tareas', level: 'write' });
  return new Hono<AppEnv>()
    .post('/tareas', write, async (c) => {
      const body = parse(taskCreateSchema, await readJson(c));
      return c.json({ data: await createTask(deps, c.get('auth'), body) });
    })
    .get('/tareas', read, async (c) => {
      const query = c.req.query();
      const paging = offsetPaging(query, ['done', 'cotizacion_id', 'factura_id']);
      const done = enumParam(query.done, 'done', ['true', 'false'] as const);
      const page = await listTaskPage(deps, c.get('auth'), {
        ...paging,
        done: done === undefined ? undefined : done === 'true',
        cotizacionId: uuidParam(query.cotizacion_id, 'cotizacion_id'),
        facturaId: uuidParam(query.factura_id, 'factura_id'),
      });
      return c.json(page);
    })
    .get('/tareas/:id', read, async (c) => {
      return c.json({ data: await getTask(deps, c.get('auth'), idParam(c.req.param('id'))) });
    })
    .post('/tareas/:id', write, async (c) => {
      const id = idParam(c.req.param('id'));
      parse(taskActionSchema, await readJson(c));
      return c.json({ data: await completeTaskAction(deps, c.get('auth'), id) });
    });
}
