import { ApiError } from '../errors.js';
import type { KeyWithOrg } from '../services/key-store.js';

/** What an operation requires of the key. */
export interface Access {
  /** Resource name used by restricted keys' permissions (`cotizaciones`, `clientes`…). */
  resource: string;
  level: 'read' | 'write';
  /** The operation is one of the few a publishable key may call. @defaultValue false */
  publishable?: boolean;
  /** Only test keys may call it (test helpers). @defaultValue false */
  testOnly?: boolean;
  /** Only secret keys may call it, whatever a restricted key's permissions. @defaultValue false */
  secretOnly?: boolean;
}

/** The resources restricted keys' permissions name (design.md §11 and docs/api.md). */
export const PERMISSION_RESOURCES = [
  'cotizaciones',
  'facturas',
  'cobranza',
  'tareas',
  'workflows',
  'clientes',
  'productos',
  'events',
  'webhooks',
  'setup',
  'test_mode',
] as const;

// Module-level rather than a closure per call: this runs on every request.
function deny(message: string): never {
  throw new ApiError(403, 'insufficient_scope', message);
}

/**
 * 403 `insufficient_scope` unless the key may perform the operation: a read key never writes, a
 * publishable key only calls the operations marked for it, a restricted key needs the resource's
 * permission at the required level (and its own scope caps that).
 */
export function authorize({ key }: KeyWithOrg, access: Access): void {
  if (key.kind === 'publishable' && !access.publishable) {
    deny(
      'Publishable keys can only load the widget configuration, draft items, preview totals and create quotes.',
    );
  }
  if (access.secretOnly && key.kind !== 'secret') deny('Only secret keys can call this operation.');
  if (access.level === 'write' && key.scope !== 'write')
    deny('This key has read scope and cannot make changes.');
  // Every key may read who it is (GET /me); restricted permissions name the other resources.
  if (key.kind === 'restricted' && access.resource !== 'me') {
    const granted = key.permissions?.[access.resource];
    if (!granted || (access.level === 'write' && granted !== 'write')) {
      deny(`This restricted key has no ${access.level} permission on ${access.resource}.`);
    }
  }
  if (access.testOnly && key.mode !== 'test') {
    deny('Test helpers only work with test keys.');
  }
}
