import { fromMinor, toMinor } from './money.js';

/** A quote's payment plan (design.md section 12): cash, a deposit then the balance, or installments. */
export type PaymentPlan =
  | { tipo: 'contado' }
  | { tipo: 'anticipo'; porcentaje: number }
  | { tipo: 'cuotas'; numero: number };

/** One scheduled payment of a plan. */
export interface ScheduledPayment {
  /** 1-based position in the plan. */
  numero: number;
  /** `anticipo` (the deposit), `cuota` (an installment) or `saldo` (the balance, or cash in full). */
  tipo: 'anticipo' | 'cuota' | 'saldo';
  /** Amount in major units of the document currency. */
  monto: number;
}

/**
 * The payments a plan asks for, in minor units of `currency` so they add up to `total` exactly:
 * the deposit is `round(total × porcentaje / 100)`, installments are equal and the last one
 * absorbs the rounding.
 * @example paymentSchedule({ tipo: 'cuotas', numero: 3 }, 100, 'MXN') // 33.33, 33.33, 33.34
 */
export function paymentSchedule(plan: PaymentPlan, total: number, currency: string): ScheduledPayment[] {
  const minor = toMinor(total, currency);
  const major = (amount: number) => fromMinor(amount, currency);
  if (plan.tipo === 'anticipo') {
    const deposit = toMinor((total * plan.porcentaje) / 100, currency);
    return [
      { numero: 1, tipo: 'anticipo', monto: major(deposit) },
      { numero: 2, tipo: 'saldo', monto: major(minor - deposit) },
    ];
  }
  if (plan.tipo === 'cuotas') {
    const each = Math.floor(minor / plan.numero);
    return Array.from({ length: plan.numero }, (_, i) => ({
      numero: i + 1,
      tipo: 'cuota' as const,
      monto: major(i === plan.numero - 1 ? minor - each * (plan.numero - 1) : each),
    }));
  }
  return [{ numero: 1, tipo: 'saldo', monto: major(minor) }];
}

/**
 * True when every payment the plan asks for on this total is at least the currency's smallest
 * unit: 24 installments of a total of 0.10, or a 1 % deposit of 0.40, would ask for nothing.
 * Cash always fits.
 * @example planFitsTotal({ tipo: 'cuotas', numero: 24 }, 0.1, 'MXN') // false
 */
export function planFitsTotal(plan: PaymentPlan, total: number, currency: string): boolean {
  return plan.tipo === 'contado' || paymentSchedule(plan, total, currency).every((step) => step.monto > 0);
}

/**
 * What a payment is within the plan, by what was paid before it: the deposit while the deposit is
 * not covered, the installment in which the amount paid so far falls, else the balance.
 */
export function classifyPayment(
  plan: PaymentPlan,
  total: number,
  paidBefore: number,
  currency: string,
): { tipo: ScheduledPayment['tipo']; numero_cuota: number | null } {
  if (plan.tipo === 'contado') return { tipo: 'saldo', numero_cuota: null };
  const paid = toMinor(paidBefore, currency);
  let reached = 0;
  for (const step of paymentSchedule(plan, total, currency)) {
    reached += toMinor(step.monto, currency);
    if (paid < reached) {
      return step.tipo === 'cuota'
        ? { tipo: 'cuota', numero_cuota: step.numero }
        : { tipo: step.tipo, numero_cuota: null };
    }
  }
  return { tipo: 'saldo', numero_cuota: null };
}
