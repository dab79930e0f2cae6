import { parseArgs } from 'node:util';
import { createOrg } from '../services/orgs.js';
import { withDatabase } from './context.js';

/** `svc-server orgs create --name N --plan P [--json]` */
export async function orgsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'create') {
    process.stderr.write(
      'usage: svc-server orgs create --name NAME --plan free|starter|professional|scale|developer [--json]\n',
    );
    return 1;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values.name || !values.plan) throw new Error('--name and --plan are required');
  const org = await withDatabase((db) => createOrg(db, { nombre: values.name!, plan: values.plan! }));
  const out = { id: org.id, nombre: org.nombre, plan: org.plan };
  process.stdout.write(
    values.json
      ? `${JSON.stringify(out)}\n`
      : `Created organization ${org.nombre} (${org.id}), plan ${org.plan}\n`,
  );
  return 0;
}
