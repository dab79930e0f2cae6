// Browser tests of @svc/elements: Chromium through @web/test-runner, against a real seeded
// svc-server (see scripts/test-server.mjs). Run: npm run test:browser --workspace @svc/elements
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { CHROMIUM_ARGS, chromiumPath } from '../../test/support/machine.mjs';
import { ROOT, startTestService } from './scripts/test-server.mjs';

const SHOTS = process.env.SVC_SHOTS_DIR ?? '/tmp/svc-shots';

/** Starts the service with the dev server and gives the tests its address and keys. */
function svcService() {
  let service;
  return {
    name: 'svc-service',
    async serverStart() {
      service = await startTestService();
    },
    async serverStop() {
      await service?.stop();
    },
    serve(context) {
      if (context.path === '/__svc_test_config') {
        return { body: JSON.stringify(service.config), type: 'json' };
      }
      // The built script-tag bundle on a page with a strict Content-Security-Policy.
      const page = /^\/__svc_csp\/(async|defer|module|noapi)\.html$/.exec(context.path);
      if (page) {
        const mode = page[1];
        const attribute = mode === 'module' ? 'type="module"' : mode === 'noapi' ? 'async' : mode;
        const apiBase = mode === 'noapi' ? '' : ` api-base="${service.config.apiBase}"`;
        context.response.set(
          'Content-Security-Policy',
          "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
            `connect-src 'self' ${new URL(service.config.apiBase).origin}; require-trusted-types-for 'script'`,
        );
        return {
          type: 'html',
          body: `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>CSP</title>
<script src="/__svc_csp/probe.js"></script>
<script src="/packages/elements/dist/svc-elements.js" ${attribute}></script></head>
<body><svc-quote-form publishable-key="${service.config.key}"${apiBase} locale="es"></svc-quote-form></body></html>`,
        };
      }
      if (context.path === '/__svc_csp/probe.js') {
        return {
          type: 'js',
          body: `window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
document.addEventListener('svc-ready', () => { window.__ready = true; });
document.addEventListener('svc-error', (e) => { window.__error = e.detail.code; });`,
        };
      }
      return undefined;
    },
    /** Server commands the tests call through `executeServerCommand`. */
    async executeCommand({ command, payload, session }) {
      if (command === 'svc-fault') {
        service.proxy.addFault(payload);
        return true;
      }
      if (command === 'svc-clear-faults') {
        service.proxy.clearFaults();
        return true;
      }
      if (command === 'svc-log') return service.proxy.takeLog();
      if (command === 'svc-quotes') return service.quotesOf(payload.empresa);
      if (command === 'svc-shot') {
        // The page as a person sees it: a real screenshot of the element, kept for review.
        const page = session.browser.getPage(session.id);
        mkdirSync(SHOTS, { recursive: true });
        const element = await page.$(payload.selector ?? 'svc-quote-form');
        const path = join(SHOTS, `${payload.name}.png`);
        await element.screenshot({ path });
        const box = await element.boundingBox();
        return { path, width: box?.width ?? 0, height: box?.height ?? 0 };
      }
      return undefined;
    },
  };
}

export default {
  rootDir: ROOT,
  files: [join(ROOT, 'packages/elements/src/**/*.test.ts')],
  nodeResolve: { exportConditions: ['production'] },
  concurrency: 1,
  testsFinishTimeout: 300_000,
  testFramework: { config: { timeout: 20_000 } },
  plugins: [
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: join(ROOT, 'tsconfig.json') }),
    svcService(),
  ],
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath: chromiumPath(),
        args: CHROMIUM_ARGS,
      },
    }),
  ],
};
