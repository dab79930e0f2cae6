import type { Database } from '../db/database.js';

/**
 * Tables holding per-mode data of an organization, children before parents. Catalog products
 * and coupons are configuration, kept by a reset; coupon use counts go back to what was seeded.
 */
export const MODE_PARTITIONED_TABLES: string[] = [
  'setup_plans',
  'tasks',
  'payment_promises',
  'quote_payments',
  'email_outbox',
  'events',
  'invoices',
  'quotes',
  'clients',
];
// webhook_jobs and webhook_attempts go with their events (ON DELETE CASCADE); endpoints stay.

/** Hooks run inside the reset transaction by features that keep other per-mode state. */
export const resetHooks: ((
  tx: Parameters<Parameters<Database['transaction']>[0]>[0],
  orgId: string,
) => Promise<void>)[] = [];

/**
 * Deletes every record the organization made in test mode, idempotency records of its test keys
 * included; live data is never touched.
 */
export async function resetTestData(db: Database, orgId: string): Promise<Record<string, number>> {
  return db.transaction(async (tx) => {
    const deleted: Record<string, number> = {};
    for (const table of MODE_PARTITIONED_TABLES) {
      const rows = await tx.query(`DELETE FROM ${table} WHERE org_id = $1 AND mode = 'test' RETURNING 1`, [
        orgId,
      ]);
      deleted[table] = rows.length;
    }
    await tx.query(`DELETE FROM folio_counters WHERE org_id = $1 AND mode = 'test'`, [orgId]);
    await tx.query(`DELETE FROM invoice_counters WHERE org_id = $1 AND mode = 'test'`, [orgId]);
    await tx.query('DELETE FROM fiscal_overrides WHERE org_id = $1', [orgId]);
    await tx.query(`UPDATE coupons SET uses = initial_uses WHERE org_id = $1 AND mode = 'test'`, [orgId]);
    // A stored response names records that are gone now: replaying it would hand out a deleted
    // quote, so the test keys' idempotency records go too and a retried key runs again. Not the
    // one of a reset sent under a key itself (in progress, in this very transaction): its
    // answer is stored there and replayed, so a retried reset does not wipe again.
    await tx.query(
      `DELETE FROM idempotency_keys
       WHERE key_id IN (SELECT id FROM api_keys WHERE org_id = $1 AND mode = 'test') AND state <> 'in_progress'`,
      [orgId],
    );
    for (const hook of resetHooks) await hook(tx, orgId);
    return deleted;
  });
}
