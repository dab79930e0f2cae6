import { readConfig, type ServerConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { openDatabase } from '../db/open.js';

/** Opens the configured database for a CLI command, runs `fn`, and closes it. */
export async function withDatabase<T>(fn: (db: Database, config: ServerConfig) => Promise<T>): Promise<T> {
  const config = readConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    return await fn(db, config);
  } finally {
    await db.close();
  }
}
