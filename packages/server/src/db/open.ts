import { join } from 'node:path';
import { createDatabase, type Database } from './database.js';
import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';

/** Where the data lives: PostgreSQL when `databaseUrl` is set, else PGlite in `dataDir`. */
export interface DatabaseLocation {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  /** PostgreSQL pool size. */
  poolSize?: number;
}

/** Opens the database and brings its schema up to date. */
export async function openDatabase(location: DatabaseLocation): Promise<Database> {
  const driver = location.databaseUrl
    ? await openPostgres(location.databaseUrl, { max: location.poolSize ?? 10 })
    : await openPglite(location.dataDir ? join(location.dataDir, 'pglite') : undefined);
  const db = createDatabase(driver);
  await migrate(db);
  return db;
}
