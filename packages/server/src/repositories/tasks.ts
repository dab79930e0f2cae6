import type { Queryable } from '../db/database.js';

/** A task as stored. */
export interface TaskRow {
  id: string;
  org_id: string;
  mode: 'test' | 'live';
  titulo: string;
  due_date: string | null;
  done: boolean;
  cotizacion_id: string | null;
  factura_id: string | null;
  notas: string | null;
  created_at: string;
}

type Scope = { orgId: string; mode: string };

const COLUMNS = `id, org_id, mode, titulo, to_char(due_date, 'YYYY-MM-DD') AS due_date, done, cotizacion_id, factura_id,
  notas, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;

export async function insertTask(
  tx: Queryable,
  task: Pick<
    TaskRow,
    'org_id' | 'mode' | 'titulo' | 'due_date' | 'cotizacion_id' | 'factura_id' | 'notas'
  > & {
    actor: string;
  },
): Promise<TaskRow> {
  const [row] = await tx.query<TaskRow>(
    `INSERT INTO tasks (org_id, mode, titulo, due_date, cotizacion_id, factura_id, notas, actor)
     VALUES ($1, $2, $3, $4::date, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [
      task.org_id,
      task.mode,
      task.titulo,
      task.due_date,
      task.cotizacion_id,
      task.factura_id,
      task.notas,
      task.actor,
    ],
  );
  return row!;
}

export async function findTask(db: Queryable, scope: Scope, id: string): Promise<TaskRow | undefined> {
  const [row] = await db.query<TaskRow>(
    `SELECT ${COLUMNS} FROM tasks WHERE id = $3 AND org_id = $1 AND mode = $2`,
    [scope.orgId, scope.mode, id],
  );
  return row;
}

/** Marks a task done; undefined when it was done already (the UPDATE's condition decides, once). */
export async function completeTask(tx: Queryable, scope: Scope, id: string): Promise<TaskRow | undefined> {
  const [row] = await tx.query<TaskRow>(
    `UPDATE tasks SET done = true, completed_at = now()
     WHERE id = $3 AND org_id = $1 AND mode = $2 AND NOT done RETURNING ${COLUMNS}`,
    [scope.orgId, scope.mode, id],
  );
  return row;
}

/** Filters and paging of GET /tareas. */
export interface TaskListQuery {
  limit: number;
  offset: number;
  done?: boolean | undefined;
  cotizacionId?: string | undefined;
  facturaId?: string | undefined;
}

/** A page of tasks, newest first, and how many match. */
export async function listTasks(
  db: Queryable,
  scope: Scope,
  query: TaskListQuery,
): Promise<{ rows: TaskRow[]; total: number }> {
  const params: unknown[] = [scope.orgId, scope.mode];
  const conditions = ['org_id = $1', 'mode = $2'];
  for (const [column, value] of [
    ['done', query.done],
    ['cotizacion_id', query.cotizacionId],
    ['factura_id', query.facturaId],
  ] as const) {
    if (value === undefined) continue;
    params.push(value);
    conditions.push(`${column} = $${params.length}`);
  }
  const where = conditions.join(' AND ');
  const [rows, [count]] = await Promise.all([
    db.query<TaskRow>(
      `SELECT ${COLUMNS} FROM tasks WHERE ${where} ORDER BY seq DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, query.limit, query.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tasks WHERE ${where}`, params),
  ]);
  return { rows, total: count?.n ?? 0 };
}
