import type { WorkflowDefinition } from '../schemas/requests.js';

/** The three workflows of the demo organization (design.md section 13). */
export const DEMO_WORKFLOWS: WorkflowDefinition[] = [
  {
    nombre: 'seguimiento',
    objeto: 'cotizacion',
    estados: ['sent', 'viewed'],
    pasos: [
      { tipo: 'create_task', titulo: 'Dar seguimiento a {folio} ({cliente})', dias: 2 },
      { tipo: 'send_reminder' },
    ],
    activo: true,
  },
  {
    nombre: 'recordatorio_cobro',
    objeto: 'factura',
    estados: ['open', 'uncollectible'],
    pasos: [{ tipo: 'send_reminder' }],
    activo: true,
  },
  {
    nombre: 'incobrables',
    objeto: 'factura',
    estados: ['open'],
    pasos: [{ tipo: 'mark_uncollectible', dias_vencida: 90 }],
    activo: true,
  },
];
