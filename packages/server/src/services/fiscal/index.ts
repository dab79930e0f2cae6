import type { ServerConfig } from '../../config.js';
import { facturamaProvider } from './facturama.js';
import type { FiscalProvider } from './provider.js';
import { sandboxProvider } from './sandbox.js';

export type { FiscalProvider, StampRequest, StampResult } from './provider.js';
export { sandboxProvider };

/**
 * The providers of a server: the sandbox for test mode, and for live mode the one `FISCAL_PROVIDER`
 * names (`facturama`, with `FISCAL_URL`, `FISCAL_USER`, `FISCAL_PASSWORD`), or none: then a live
 * Mexican invoice cannot be finalized (503 `fiscal_unavailable`), never stamped by a stand-in.
 */
export function fiscalProviders(config: Pick<ServerConfig, 'fiscal'>): {
  test: FiscalProvider;
  live: FiscalProvider | null;
} {
  const fiscal = config.fiscal;
  if (fiscal?.provider === 'facturama' && fiscal.url && fiscal.user && fiscal.password) {
    return {
      test: sandboxProvider,
      live: facturamaProvider({ baseUrl: fiscal.url, user: fiscal.user, password: fiscal.password }),
    };
  }
  return { test: sandboxProvider, live: null };
}
