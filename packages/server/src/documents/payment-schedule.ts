import type { Lang } from '../i18n/messages.js';
import { QUOTE_PAGE_MESSAGES } from '../i18n/quote-page.js';
import { type paymentFields, planText } from '../services/payments.js';

/** What the client's page and the PDF show of a quote's payments. */
export type PaymentFields = Awaited<ReturnType<typeof paymentFields>>;

/**
 * The payment plan as the client reads it, on the page and in the PDF alike: its heading (a quote
 * paid at once says when, after the client's terms, "30 days after approval", rather than "paid
 * in full" over a net-30 balance) and each payment's name and pay-by date.
 */
export function planSchedule(
  payments: Pick<PaymentFields, 'plan_pagos' | 'calendario'>,
  lang: Lang,
  day: (iso: string) => string,
) {
  const p = QUOTE_PAGE_MESSAGES[lang];
  const single = payments.plan_pagos.tipo === 'contado' ? payments.calendario[0] : undefined;
  return {
    heading: single
      ? p.singlePayment(single.dias === 0 ? p.onApproval : p.afterApproval(single.dias))
      : planText(payments.plan_pagos, lang),
    steps: payments.calendario.map((step) => ({
      name:
        step.tipo === 'anticipo'
          ? p.deposit
          : step.tipo === 'cuota'
            ? p.installment(step.numero)
            : p.balanceDue,
      payBy: step.vence ? day(step.vence) : step.dias === 0 ? p.onApproval : p.afterApproval(step.dias),
      monto: step.monto,
    })),
  };
}
