import { emulateMedia, setViewport } from '@web/test-runner-commands';
import { assert } from 'chai';
import { LOCALES } from '../internal/i18n/index.js';
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

/** The lines a range of text sits on. */
const lines = (range: Range) => new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;

/** The lines the text of `element` sits on. */
function linesOf(element: Element): number {
  const range = document.createRange();
  range.selectNodeContents(element);
  return lines(range);
}

/** Each word of the element's text that is split over two lines. */
function brokenWords(element: Element): string[] {
  const broken: string[] = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    for (const match of node.data.matchAll(/[^\s]+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      if (lines(range) > 1) broken.push(match[0]);
    }
  }
  return broken;
}

describe('totals and format examples on a phone', () => {
  after(async () => {
    await setViewport({ width: 1280, height: 800 });
    document.body.style.padding = '';
  });
  afterEach(() => cleanup());

  for (const width of [320, 360]) {
    for (const locale of LOCALES) {
      it(`never breaks a word or an amount in ${locale} at ${width} px`, async () => {
        await setViewport({ width, height: 900 });
        document.body.style.margin = '0';
        document.body.style.padding = '8px';
        document.body.style.fontFamily = 'system-ui, sans-serif';
        // Ordinary B2B amounts (24 laptops), and a very large one.
        for (const [name, price, quantity] of [
          ['24 laptops', 48_600, 24],
          ['100 million', 99_999_999, 1],
        ] as const) {
          const form = await mount({
            attrs: { locale },
            props: { items: [{ descripcion: name, cantidad: quantity, precio_unitario: price }] },
          });
          await until(() => form.totalsConfirmed, 'preview');
          await form.updateComplete;
          const totals = $(form, '[part="totals"]')!;
          // Labels wrap at spaces only, if at all; an amount is never split (it goes under its label).
          assert.deepEqual(brokenWords(totals), [], `${name}: no word of the totals split`);
          for (const dd of totals.querySelectorAll('dd'))
            assert.equal(linesOf(dd), 1, `${name}: ${dd.textContent}`);
          for (const dt of totals.querySelectorAll('dt'))
            if (!/\s/.test(dt.textContent!.trim()))
              assert.equal(linesOf(dt), 1, `${name}: ${dt.textContent}`);
          assert.isAtMost(document.documentElement.scrollWidth, width, 'no horizontal overflow');
          if (name === '100 million') await shot(`totals-${locale}-${width}`);
          // A phone number in the wrong format: the example in the message stays whole.
          type($<HTMLInputElement>(form, '[name="telefono"]')!, '5512345678');
          await form.submit().catch(() => {});
          await form.updateComplete;
          const error = $(form, '#svc-e-telefono')!;
          const node = [...error.childNodes].find(
            (n): n is Text => n instanceof Text && n.data.includes('+52'),
          )!;
          const example = document.createRange();
          example.setStart(node, node.data.indexOf('+52'));
          example.setEnd(node, node.data.indexOf('+52') + '+52 55 1234 5678'.length);
          assert.equal(lines(example), 1, error.textContent!);
          cleanup();
        }
      });
    }
  }
});
