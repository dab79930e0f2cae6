import type { Queryable } from '../db/database.js';
import type { WorkflowDefinition, WorkflowStep } from '../schemas/requests.js';

/** A workflow as stored. */
export interface WorkflowRow {
  id: string;
  org_id: string;
  nombre: string;
  objeto: 'cotizacion' | 'factura';
  pasos: WorkflowStep[];
  estados: string[] | null;
  activo: boolean;
}

const COLUMNS = 'id, org_id, nombre, objeto, pasos, estados, activo';

/** The organization's workflows, by name. */
export function listWorkflows(db: Queryable, orgId: string): Promise<WorkflowRow[]> {
  return db.query<WorkflowRow>(`SELECT ${COLUMNS} FROM workflows WHERE org_id = $1 ORDER BY nombre`, [orgId]);
}

export async function findWorkflow(
  db: Queryable,
  orgId: string,
  id: string,
): Promise<WorkflowRow | undefined> {
  const [row] = await db.query<WorkflowRow>(
    `SELECT ${COLUMNS} FROM workflows WHERE org_id = $1 AND id = $2`,
    [orgId, id],
  );
  return row;
}

/**
 * Creates a workflow (validated by `workflowSchema`), or replaces the one of the same name when
 * `replace` is set; with neither, a workflow of that name is kept as it is (the seed's reruns).
 */
export async function upsertWorkflow(
  db: Queryable,
  orgId: string,
  workflow: WorkflowDefinition,
  replace = false,
): Promise<WorkflowRow | undefined> {
  const [row] = await db.query<WorkflowRow>(
    `INSERT INTO workflows (org_id, nombre, objeto, pasos, estados, activo) VALUES ($1, $2, $3, $4::jsonb, $5, $6)
     ON CONFLICT (org_id, nombre) DO ${
       replace
         ? 'UPDATE SET objeto = EXCLUDED.objeto, pasos = EXCLUDED.pasos, estados = EXCLUDED.estados, activo = EXCLUDED.activo'
         : 'NOTHING'
     }
     RETURNING ${COLUMNS}`,
    [
      orgId,
      workflow.nombre,
      workflow.objeto,
      JSON.stringify(workflow.pasos),
      workflow.estados ?? null,
      workflow.activo ?? true,
    ],
  );
  return row;
}
