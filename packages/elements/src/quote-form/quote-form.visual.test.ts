import { emulateMedia, setViewport } from '@web/test-runner-commands';
import { assert } from 'chai';
import {
  $,
  axeViolations,
  cleanup,
  clearFaults,
  fault,
  freshApiBase,
  mount,
  pick,
  picker,
  shot,
  testService,
  type,
  until,
} from '../testing/fixture.js';
import type { SvcQuoteForm } from './quote-form.component.js';

/**
 * The main states in light and dark, at a 360 px phone and a 1280 px desktop. Each screenshot is
 * saved under /tmp/svc-shots (SVC_SHOTS_DIR) for a person to look at; the test checks what a
 * machine can: nothing overflows the viewport, and the theme's colours apply.
 */
const STATES: Record<string, (theme: string) => Promise<SvcQuoteForm>> = {
  async loading(theme) {
    await fault({ method: 'GET', path: '/elements/config', action: 'delay', delayMs: 3000 });
    const form = await mount({ attrs: { theme, 'api-base': await freshApiBase() }, wait: 'none' });
    await form.updateComplete;
    return form;
  },
  async ready(theme) {
    const form = await mount({ attrs: { theme } });
    await pick(form, 'Laptop 14');
    await pick(form, 'consultoría');
    await until(() => form.totalsConfirmed, 'preview');
    return form;
  },
  async picker(theme) {
    const form = await mount({ attrs: { theme } });
    const input = picker(form).querySelector('input')!;
    input.focus();
    type(input, 'la');
    await until(() => picker(form).querySelectorAll('[role="option"]').length > 1, 'options');
    return form;
  },
  async drafting(theme) {
    const form = await mount({ attrs: { theme } });
    await fault({ method: 'POST', path: '/elements/ai-draft', action: 'stream', delayMs: 2500 });
    void form.draft('3 laptops, 2 monitores y 10 horas de instalación');
    await until(() => form.lines.length === 1, 'first drafted line');
    await form.updateComplete;
    return form;
  },
  async coupon(theme) {
    const form = await mount({ attrs: { theme } });
    await pick(form, 'Laptop 14');
    type($<HTMLInputElement>(form, '#svc-coupon')!, 'BIENVENIDA10');
    $<HTMLButtonElement>(form, '[part="coupon"] button')!.click();
    await until(() => /BIENVENIDA10/.test($(form, '#svc-coupon-status')?.textContent ?? ''), 'coupon');
    return form;
  },
  async invalid(theme) {
    const form = await mount({ attrs: { theme } });
    await pick(form, 'Mouse');
    type($<HTMLInputElement>(form, '[name="email"]')!, 'compras@');
    await form.submit().catch(() => {});
    await form.updateComplete;
    return form;
  },
  async success(theme) {
    const form = await mount({ attrs: { theme } });
    await pick(form, 'Laptop 14');
    type($<HTMLInputElement>(form, '[name="empresa"]')!, 'Papelería Luna');
    type($<HTMLInputElement>(form, '[name="email"]')!, 'compras@luna.example');
    await form.submit();
    await form.updateComplete;
    return form;
  },
  async error(theme) {
    return mount({
      attrs: { theme, 'publishable-key': 'pk_test_00000000000000000000000000000000' },
      wait: 'error',
    });
  },
};

describe('visual states', () => {
  after(async () => {
    await setViewport({ width: 1280, height: 800 });
    document.body.style.background = '';
  });
  afterEach(async () => {
    cleanup();
    await clearFaults();
  });

  for (const width of [360, 1280]) {
    for (const theme of ['light', 'dark']) {
      for (const [state, render] of Object.entries(STATES)) {
        it(`${state}, ${theme}, ${width} px`, async () => {
          await testService();
          await setViewport({ width, height: 900 });
          await emulateMedia({ colorScheme: theme === 'dark' ? 'dark' : 'light' });
          document.body.style.background = theme === 'dark' ? '#0b0d10' : '#f4f5f7';
          document.body.style.margin = '0';
          document.body.style.padding = width < 600 ? '8px' : '24px';
          document.body.style.fontFamily = 'system-ui, sans-serif';
          const form = await render(theme);
          if (width > 600) form.style.maxWidth = '720px';
          await new Promise((r) => setTimeout(r, 120));
          const result = await shot(`${state}-${theme}-${width}`);
          assert.isAtMost(document.documentElement.scrollWidth, width, 'no horizontal overflow');
          assert.isAtMost(result.width, width);
          const surface = getComputedStyle($(form, '[part~="base"]')!).backgroundColor;
          assert.equal(surface, theme === 'dark' ? 'rgb(22, 26, 31)' : 'rgb(255, 255, 255)');
          // Contrast included: the dark theme is checked as the person sees it.
          assert.deepEqual(await axeViolations(form), []);
        });
      }
    }
  }
});
