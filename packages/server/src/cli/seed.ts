import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { demoKeysFileOf } from '../config.js';
import { normalizeOrigin } from '../services/api-keys.js';
import { readCatalog, seedDemo } from '../services/seed.js';
import { withDatabase } from './context.js';

/** `demo/catalog.json` of this repository. */
export const DEFAULT_CATALOG = join(dirname(fileURLToPath(import.meta.url)), '../../../../demo/catalog.json');

/** `svc-server seed [--json] [--origin URL]... [--catalog PATH]` */
export async function seedCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean', default: false },
      origin: { type: 'string', multiple: true, default: [] },
      catalog: { type: 'string' },
    },
  });
  // A bad --origin is refused before the database is opened (seedDemo checks them again).
  for (const origin of values.origin) normalizeOrigin(origin);
  const catalog = readCatalog(values.catalog ? resolve(values.catalog) : DEFAULT_CATALOG);
  const { result, keysFile } = await withDatabase(async (db, config) => {
    const port = config.port;
    const origins = [`http://127.0.0.1:${port}`, `http://localhost:${port}`, ...(values.origin ?? [])];
    return {
      result: await seedDemo(db, catalog, { origins }),
      keysFile: demoKeysFileOf(process.env, config.dataDir),
    };
  });
  // Where `serve` finds them, so that its demo pages work: the keys in clear, for this user only
  // (test keys of the demo organization; the database holds only their hashes).
  if (keysFile) {
    mkdirSync(dirname(keysFile), { recursive: true });
    writeFileSync(keysFile, `${JSON.stringify(result, null, 2)}\n`, { mode: 0o600 });
    chmodSync(keysFile, 0o600);
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    process.stdout.write(
      [
        `Seeded ${result.org.nombre} (${result.org.id}, plan ${result.org.plan})`,
        `  publishable test key: ${result.keys.pk_test}`,
        `  secret test key:      ${result.keys.sk_test_write}`,
        `  allowed origins:      ${result.publishable_origins.join(', ')}`,
        ...(keysFile
          ? [`  demo keys written to ${keysFile} (svc-server serve shows the demo pages with them)`]
          : []),
        '',
      ].join('\n'),
    );
  }
  return 0;
}
