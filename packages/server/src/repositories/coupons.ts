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

/** What of a coupon a quote is priced with: a quote written later checks they are still its values. */
export type CouponTerms = Pick<CouponRow, 'tipo' | 'valor' | 'moneda'>;

/** Why a coupon cannot be applied. */
export type CouponRejection = 'not_found' | 'expired' | 'inactive' | 'exhausted' | 'currency_mismatch';

const COLUMNS = 'id, code, tipo, valor, moneda, max_uses, uses, expires_at, active';

/** The SELECT of a coupon by code, matched without regard to case; placeholders as SQL. */
export const couponByCodeSql = (org: string, mode: string, code: string) =>
  `SELECT ${COLUMNS} FROM coupons WHERE org_id = ${org} AND mode = ${mode} AND upper(code) = upper(${code})`;

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
 * The `claimed` common table expression that counts one use of the coupon `idSql` (NULL: none)
 * when it is still usable at `nowSql`: the condition is checked by the UPDATE itself under the row
 * lock, so any number of concurrent requests on any number of processes never exceed `max_uses`.
 * Gate the statement's writes on {@link COUPON_CLAIMED}.
 */
export const claimCouponCte = (idSql: string, nowSql: string) =>
  `claimed AS (
       UPDATE coupons SET uses = uses + 1
       WHERE id = ${idSql} AND active AND (max_uses IS NULL OR uses < max_uses)
         AND (expires_at IS NULL OR expires_at > ${nowSql})
       RETURNING id
     )`;

/** True when no coupon was asked for, or its use was counted. */
export const COUPON_CLAIMED = (idSql: string) => `(${idSql} IS NULL OR EXISTS (SELECT 1 FROM claimed))`;
