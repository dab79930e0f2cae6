import { assert } from 'chai';
import { until } from '../testing/fixture.js';

interface CspWindow extends Window {
  __violations: string[];
  __ready?: boolean;
  __error?: string;
}

/** Loads one of the test runner's strict-CSP pages (web-test-runner.config.mjs) in a frame. */
async function open(mode: string): Promise<{ frame: HTMLIFrameElement; win: CspWindow }> {
  const frame = document.createElement('iframe');
  frame.style.width = '400px';
  frame.style.height = '900px';
  frame.src = `/__svc_csp/${mode}.html`;
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  document.body.append(frame);
  await loaded;
  return { frame, win: frame.contentWindow as CspWindow };
}

describe('the script-tag bundle (dist/svc-elements.js)', () => {
  afterEach(() => {
    for (const frame of document.querySelectorAll('iframe')) frame.remove();
  });

  for (const mode of ['async', 'defer', 'module']) {
    it(`renders under a strict Content-Security-Policy, loaded as <script ${mode}>`, async () => {
      const { win } = await open(mode);
      await until(() => win.__ready || win.__error, 'svc-ready', 10_000);
      assert.isUndefined(win.__error);
      const form = win.document.querySelector('svc-quote-form')!;
      assert.include(form.shadowRoot!.textContent, 'Estudio Nopal');
      assert.deepEqual(win.__violations, [], 'no inline script or style, no eval');
    });
  }

  it('defaults api-base to the origin that served the script', async () => {
    const { win } = await open('noapi');
    await until(() => win.__error, 'svc-error', 10_000);
    const asked = win.performance
      .getEntriesByType('resource')
      .map((e) => e.name)
      .find((name) => name.includes('/elements/config'));
    assert.equal(asked, `${location.origin}/api/v1/elements/config`);
  });
});
