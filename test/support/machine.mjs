// What the tests need of this machine (Chromium, free ports) and one shared fixture, used by
// the vitest system tests (test/support/*.ts) and the widget's @web/test-runner suite (plain Node
// modules, no TypeScript).
import { createServer } from 'node:net';

/** Debian's Chromium unless CHROME_PATH names another. */
export const chromiumPath = () => process.env.CHROME_PATH ?? '/usr/bin/chromium';

/** Headless Chromium flags this machine needs (no sandbox as root, nothing reaching out). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** A free TCP port on loopback. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * `svc-server` arguments that create a live publishable key for another site only
 * (https://shop.example): a test page's origin is never on its list.
 */
export const foreignKeyArgs = (orgId) =>
  `keys create --org ${orgId} --kind publishable --mode live --scope write --origin https://shop.example --json`.split(
    ' ',
  );
