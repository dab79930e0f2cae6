import { randomUUID } from 'node:crypto';
import { buildCfdi, cfdiDateTime } from './cfdi.js';
import type { FiscalProvider, StampRequest, StampResult } from './provider.js';

/**
 * The built-in sandbox provider (test mode and the default): stamps at once with a random folio
 * fiscal, in a CFDI 4.0-shaped document whose `TimbreFiscalDigital` says it is a sandbox stamp,
 * dated in the local time of the place of issue as the document is.
 */
export const sandboxProvider: FiscalProvider = {
  name: 'sandbox',
  // Its seal is a constant: the number can be written into its XML once taken.
  numberAfterStamp: true,
  async stamp(request: StampRequest): Promise<StampResult> {
    const uuid = randomUUID().toUpperCase();
    const xml = buildCfdi(request, {
      uuid,
      fechaTimbrado: cfdiDateTime(request.now),
      rfcProvCertif: 'SVC000000SB0',
      sandbox: true,
    });
    return { status: 'stamped', uuid, xml };
  },
};
