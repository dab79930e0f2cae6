import type { Queryable } from '../db/database.js';

/** A coupon as stored. */
export interface CouponRow {
  id: string;
  code: string;
  tipo: 'porcentaje' | 'monto';
  valor: number;
  moneda: string | null;
  max_uses: number | null;
  uses: number;
  expires_at: Date | null;
  active: boolean;
}

/** Why a coupon cannot be applied. */
export type CouponRejection = 'not_found' | 'expired' | 'inactive' | 'exhausted' | 'currency_mismatch';

type Scope = { orgId: string; mode: string };

const COLUMNS = 'id, code, tipo, valor, moneda, max_uses, uses, expires_at, active';

/** Coupon codes are matched without regard to case. */
export async function findCoupon(db: Queryable, scope: Scope, code: string): Promise<CouponRow | undefined> {
  const [row] = await db.query<CouponRow>(
    `SELECT ${COLUMNS} FROM coupons WHERE org_id = $1 AND mode = $2 AND upper(code) = upper($3)`,
    [scope.orgId, scope.mode, code],
  );
  return row;
}

/** Why `coupon` cannot be used now in `currency`, or null when it can. */
export function couponRejection(
  coupon: CouponRow | undefined,
  currency: string,
  now: Date,
): CouponRejection | null {
  if (!coupon) return 'not_found';
  if (!coupon.active) return 'inactive';
  if (coupon.expires_at && coupon.expires_at.getTime() <= now.getTime()) return 'expired';
  if (coupon.max_uses !== null && coupon.uses >= coupon.max_uses) return 'exhausted';
  if (coupon.tipo === 'monto' && coupon.moneda && coupon.moneda !== currency) return 'currency_mismatch';
  return null;
}

/**
 * Finds the coupon by code and counts one use in one statement, when it is usable: active, not
 * expired, uses left and, for an amount, in `currency`. The condition is checked by the UPDATE under
 * the row lock, so concurrent requests on any number of processes never exceed `max_uses`. Returns
 * the coupon as it was before this use, or undefined when nothing was claimed (ask
 * {@link findCoupon} and `couponRejection` why: that costs a query on the failure path only).
 */
export async function claimCoupon(
  tx: Queryable,
  scope: Scope,
  code: string,
  currency: string,
  now: Date,
): Promise<CouponRow | undefined> {
  const [row] = await tx.query<CouponRow>(
    `UPDATE coupons SET uses = uses + 1
     WHERE org_id = $1 AND mode = $2 AND upper(code) = upper($3)
       AND active AND (max_uses IS NULL OR uses < max_uses) AND (expires_at IS NULL OR expires_at > $4)
       AND (tipo <> 'monto' OR moneda IS NULL OR moneda = $5)
     RETURNING ${COLUMNS}`,
    [scope.orgId, scope.mode, code, now, currency],
  );
  return row ? { ...row, uses: row.uses - 1 } : undefined;
}
