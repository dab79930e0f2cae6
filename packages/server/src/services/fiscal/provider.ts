import type { ClientRecord } from '../../repositories/clients.js';
import type { InvoiceItemRow, InvoiceRow } from '../../repositories/invoices.js';
import type { Org } from '../orgs.js';

/** What a stamping needs: the invoice (or the credit note's invoice), its lines and the parties. */
export interface StampRequest {
  /** `I` an invoice (ingreso), `E` a credit note (egreso) related to the invoice's folio fiscal. */
  kind: 'I' | 'E';
  /** The number the document will carry (`F-000001`, `NC-000001`). */
  numero: string;
  invoice: InvoiceRow;
  items: InvoiceItemRow[];
  org: Org;
  client: ClientRecord | undefined;
  /** A credit note's amount, tax included. */
  monto?: number;
  /** Pesos per unit of the invoice's currency (the CFDI's `TipoCambio`); null for an invoice in MXN. */
  tipoCambio: number | null;
  /** When it is issued (the sandbox dates the stamp with it). */
  now: Date;
  /**
   * The `metodo` of the payment that settles an invoice paid at once (PUE), when it is known as it
   * is stamped (an invoice from a paid quote): its `FormaPago`.
   */
  settledWith?: string | undefined;
}

/** The outcome of a stamping: a folio fiscal and the stamped XML, or why not. */
export type StampResult =
  | { status: 'stamped'; uuid: string; xml: string }
  | { status: 'rejected'; motivo: string }
  | { status: 'unavailable'; retryAfterSeconds: number };

/** A fiscal provider (PAC) that stamps CFDI for Mexican organizations. */
export interface FiscalProvider {
  /** For logs and the sandbox mark. */
  readonly name: string;
  /**
   * Whether its document may take its number after the stamp: a stand-in whose seal does not
   * cover the number (the sandbox). Its invoices are stamped before their number is taken, and the
   * statement that takes the number writes it into the XML, so that the number's lock, which every
   * finalization of the organization waits for, lasts one statement. A real stamp seals the
   * number: it is taken first, and held through the stamp.
   */
  readonly numberAfterStamp?: boolean;
  stamp(request: StampRequest): Promise<StampResult>;
}
