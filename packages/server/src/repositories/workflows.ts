import type { Queryable } from '../db/database.js';
import type { WorkflowDefinition, WorkflowStep } from '../schemas/requests.js';

/** A workflow as stored. */
export interface WorkflowRow {
  id: string;
  org_id: string;
  mode: 'test' | 'live';
  nombre: string;
  objeto: 'cotizacion' | 'factura';
  pasos: WorkflowStep[];
  estados: string[] | null;
  activo: boolean;
}

const COLUMNS = 'id, org_id, mode, nombre, objeto, pasos, estados, activo';

/** Workflows belong to an organization and a mode, like every record a key writes. */
export type WorkflowScope = { orgId: string; mode: 'test' | 'live' };

/** The organization's workflows in a mode, by name. */
export function listWorkflows(db: Queryable, scope: WorkflowScope): Promise<WorkflowRow[]> {
  return db.query<WorkflowRow>(
    `SELECT ${COLUMNS} FROM workflows WHERE org_id = $1 AND mode = $2 ORDER BY nombre`,
    [scope.orgId, scope.mode],
  );
}

export async function findWorkflow(
  db: Queryable,
  scope: WorkflowScope,
  id: string,
): Promise<WorkflowRow | undefined> {
  const [row] = await db.query<WorkflowRow>(
    `SELECT ${COLUMNS} FROM workflows WHERE org_id = $1 AND mode = $2 AND id = $3`,
    [scope.orgId, scope.mode, id],
  );
  return row;
}

/**
 * Creates a workflow (validated by `workflowSchema`), or replaces the one of the same name when
 * `replace` is set; with neither, a workflow of that name is kept as it is (the seed's reruns).
 */
export async function upsertWorkflow(
  db: Queryable,
  scope: WorkflowScope,
  workflow: WorkflowDefinition,
  replace = false,
): Promise<WorkflowRow | undefined> {
  const [row] = await db.query<WorkflowRow>(
    `INSERT INTO workflows (org_id, mode, nombre, objeto, pasos, estados, activo) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)
     ON CONFLICT (org_id, mode, nombre) DO ${
       replace
         ? 'UPDATE SET objeto = EXCLUDED.objeto, pasos = EXCLUDED.pasos, estados = EXCLUDED.estados, activo = EXCLUDED.activo'
         : 'NOTHING'
     }
     RETURNING ${COLUMNS}`,
    [
      scope.orgId,
      scope.mode,
      workflow.nombre,
      workflow.objeto,
      JSON.stringify(workflow.pasos),
      workflow.estados ?? null,
      workflow.activo ?? true,
    ],
  );
  return row;
}
