import type { Queryable } from '../db/database.js';
import { invalidRequest, invalidState, notFound } from '../errors.js';
import { offsetMeta } from '../http/query.js';
import { insertEvent } from '../repositories/events.js';
import {
  completeTask,
  findTask,
  insertTask,
  listTasks,
  type TaskListQuery,
  type TaskRow,
} from '../repositories/tasks.js';
import type { AppDeps } from '../types.js';
import type { KeyWithOrg } from './key-store.js';
import { apiActor } from './quotes.js';

/** The body of POST /tareas. */
export interface TaskRequest {
  titulo: string;
  due_date?: string | null | undefined;
  cotizacion_id?: string | null | undefined;
  factura_id?: string | null | undefined;
  notas?: string | null | undefined;
}

/** A task as the API returns it (design.md section 13). */
export function taskView(task: TaskRow) {
  return {
    id: task.id,
    object: 'task' as const,
    titulo: task.titulo,
    due_date: task.due_date,
    done: task.done,
    cotizacion_id: task.cotizacion_id,
    factura_id: task.factura_id,
    created_at: task.created_at,
  };
}

/** A task in `task.*` events: the spec's task data. */
export function taskEventData(task: TaskRow) {
  return {
    id: task.id,
    object: 'task' as const,
    titulo: task.titulo,
    due_date: task.due_date,
    done: task.done,
    cotizacion_id: task.cotizacion_id,
  };
}

/** Whether a record of `table` with this id exists in the organization and mode. */
async function exists(
  db: Queryable,
  table: 'quotes' | 'invoices',
  scope: { orgId: string; mode: string },
  id: string,
) {
  // Invoices come with /facturas; where that table is not there, no invoice exists.
  if (table === 'invoices') {
    const [present] = await db.query<{ ok: boolean }>("SELECT to_regclass('invoices') IS NOT NULL AS ok");
    if (!present?.ok) return false;
  }
  const rows = await db.query(`SELECT 1 FROM ${table} WHERE id = $1 AND org_id = $2 AND mode = $3`, [
    id,
    scope.orgId,
    scope.mode,
  ]);
  return rows.length > 0;
}

/**
 * Creates a task with `task.created`, in the caller's transaction: the API's, or a workflow step's
 * for one record. The quote or invoice it names must exist in the organization and mode (400).
 */
export async function createTaskInTx(
  tx: Queryable,
  scope: { orgId: string; mode: 'test' | 'live' },
  request: TaskRequest,
  actor: string,
): Promise<TaskRow> {
  if (request.cotizacion_id && !(await exists(tx, 'quotes', scope, request.cotizacion_id))) {
    throw invalidRequest(`cotizacion_id: no quote ${request.cotizacion_id} in this organization`);
  }
  if (request.factura_id && !(await exists(tx, 'invoices', scope, request.factura_id))) {
    throw invalidRequest(`factura_id: no invoice ${request.factura_id} in this organization`);
  }
  const task = await insertTask(tx, {
    org_id: scope.orgId,
    mode: scope.mode,
    titulo: request.titulo,
    due_date: request.due_date ?? null,
    cotizacion_id: request.cotizacion_id ?? null,
    factura_id: request.factura_id ?? null,
    notas: request.notas ?? null,
    actor,
  });
  await insertEvent(tx, {
    orgId: scope.orgId,
    mode: scope.mode,
    type: 'task.created',
    object: 'task',
    objectId: task.id,
    data: taskEventData(task),
    actor,
  });
  return task;
}

const scopeOf = (auth: KeyWithOrg) => ({ orgId: auth.org.id, mode: auth.key.mode });

/** POST /tareas. */
export async function createTask(deps: AppDeps, auth: KeyWithOrg, request: TaskRequest) {
  const task = await deps.db.transaction((tx) => createTaskInTx(tx, scopeOf(auth), request, apiActor(auth)));
  return taskView(task);
}

/** GET /tareas/{id}; 404 outside the key's organization and mode. */
export async function getTask(deps: AppDeps, auth: KeyWithOrg, id: string) {
  const task = await findTask(deps.db, scopeOf(auth), id);
  if (!task) throw notFound('Task');
  return taskView(task);
}

/** POST /tareas/{id} `{ action: "complete" }`: done, with `task.completed`; a second time 409. */
export async function completeTaskAction(deps: AppDeps, auth: KeyWithOrg, id: string) {
  const scope = scopeOf(auth);
  const task = await deps.db.transaction(async (tx) => {
    const done = await completeTask(tx, scope, id);
    if (!done) {
      if (!(await findTask(tx, scope, id))) throw notFound('Task');
      throw invalidState('This task is done already. Nothing was changed.');
    }
    await insertEvent(tx, {
      orgId: scope.orgId,
      mode: scope.mode,
      type: 'task.completed',
      object: 'task',
      objectId: done.id,
      data: taskEventData(done),
      actor: apiActor(auth),
    });
    return done;
  });
  return taskView(task);
}

/** GET /tareas: a page and its `meta`. */
export async function listTaskPage(deps: AppDeps, auth: KeyWithOrg, query: TaskListQuery) {
  const page = await listTasks(deps.db, scopeOf(auth), query);
  return {
    data: page.rows.map(taskView),
    meta: offsetMeta(query, page.total),
  };
}
