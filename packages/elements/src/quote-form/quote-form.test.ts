import { emulateMedia, sendKeys } from '@web/test-runner-commands';
import { assert } from 'chai';
import type { SvcErrorDetail } from '../events/svc-error.js';
import {
  $,
  $$,
  axeViolations,
  cleanup,
  clearFaults,
  fault,
  freshApiBase,
  mount,
  pick,
  quotesOf,
  requestLog,
  retype,
  testService,
  text,
  type,
  until,
} from '../testing/fixture.js';
import type { QuoteCreated, SvcQuoteForm } from './quote-form.component.js';

const totalsText = (form: SvcQuoteForm) =>
  ($(form, '[part="totals"]')?.textContent ?? '').replace(/\s+/g, ' ');

/** Submits the form once, the server refusing it with 400 `invalid_request` and `error`. */
async function submitRefused(form: SvcQuoteForm, error: string) {
  await fault({
    method: 'POST',
    path: '/cotizaciones',
    action: 'respond',
    status: 400,
    body: { error, code: 'invalid_request' },
  });
  await form.submit().catch(() => {});
  await form.updateComplete;
}

async function fillClient(form: SvcQuoteForm, empresa: string, email = 'compras@luna.example') {
  type($(form, '[name="empresa"]') as HTMLInputElement, empresa);
  type($(form, '[name="email"]') as HTMLInputElement, email);
  await form.updateComplete;
}

describe('<svc-quote-form>', () => {
  afterEach(async () => {
    cleanup();
    await clearFaults();
    await requestLog();
  });

  describe('loading and configuration', () => {
    it('shows a skeleton while the configuration loads, then the merchant’s brand', async () => {
      const form = await mount({ wait: 'none' });
      const ready = new Promise((resolve) => form.addEventListener('svc-ready', resolve, { once: true }));
      await form.updateComplete;
      assert.ok($(form, '.skeleton'), 'skeleton while loading');
      assert.equal($(form, '[part~="base"]')?.getAttribute('aria-busy'), 'true');
      assert.deepEqual(await axeViolations(form), []);
      await ready;
      await form.updateComplete;
      assert.notOk($(form, '.skeleton'));
      assert.include(text(form), 'Estudio Nopal');
      assert.equal(getComputedStyle(form).getPropertyValue('--svc-brand').trim(), '#1f7a4d');
      assert.deepEqual(await axeViolations(form), []);
    });

    it('shows an empty basket without amounts, its number formatter made only after that frame', async () => {
      // A page's first Intl.NumberFormat costs Chromium tens of milliseconds: an empty form is on
      // screen without one, and the totals come with the first line.
      const made: number[] = [];
      const NumberFormat = Intl.NumberFormat;
      let rendered = Number.POSITIVE_INFINITY;
      Intl.NumberFormat = new Proxy(NumberFormat, {
        construct(target, args) {
          made.push(performance.now());
          return Reflect.construct(target, args);
        },
        apply(target, self, args) {
          made.push(performance.now());
          return Reflect.apply(target, self, args);
        },
      });
      try {
        const form = await mount({ wait: 'none' });
        await new Promise((resolve) => form.addEventListener('svc-ready', resolve, { once: true }));
        rendered = performance.now();
        assert.include(text(form), 'Estudio Nopal');
        assert.notOk($(form, '[part="totals"]'), 'no totals for an empty basket');
        assert.deepEqual(made, [], 'no formatter before the form is on screen');
        await until(() => made.length > 0, 'the formatter, after the frame');
        assert.isAbove(made[0]!, rendered);
        await pick(form, 'Laptop');
        assert.include(totalsText(form), 'Total');
      } finally {
        Intl.NumberFormat = NumberFormat;
      }
    });

    it('explains a wrong key in the page’s language and loads after a retry with a good key', async () => {
      const svc = await testService();
      const errors: SvcErrorDetail[] = [];
      document.addEventListener('svc-error', (e) => errors.push(e.detail), { once: true });
      const form = await mount({
        attrs: { 'publishable-key': 'pk_test_00000000000000000000000000000000', locale: 'en' },
        wait: 'error',
      });
      assert.include(text(form), 'The quote form key is missing or not valid');
      assert.equal(errors[0]?.code, 'invalid_key');
      assert.deepEqual(await axeViolations(form), []);
      form.setAttribute('publishable-key', svc.key);
      const ready = new Promise((resolve) => form.addEventListener('svc-ready', resolve, { once: true }));
      $<HTMLButtonElement>(form, '[part~="error"] button')!.click();
      await ready;
      assert.include(text(form), 'Estudio Nopal');
    });

    it('never sends a secret key pasted as the publishable one, and says the key is not valid', async () => {
      await requestLog();
      const form = await mount({
        attrs: { 'publishable-key': 'sk_test_pegada_por_error', locale: 'en' },
        wait: 'error',
      });
      assert.include(text(form), 'The quote form key is missing or not valid');
      assert.deepEqual(await requestLog(), [], 'nothing sent');
    });

    it('says the site is not allowed when the key is for another origin', async () => {
      const svc = await testService();
      const form = await mount({ attrs: { 'publishable-key': svc.foreignKey }, wait: 'error' });
      assert.include(text(form), 'no está autorizado');
      assert.ok($(form, '[part~="error"] button'), 'a retry button');
    });

    it('says the service is unreachable, and retries', async () => {
      const svc = await testService();
      const form = await mount({
        attrs: { 'api-base': svc.unreachableApiBase, locale: 'de' },
        wait: 'error',
      });
      assert.include(text(form), 'Verbindung');
      const retry = $<HTMLButtonElement>(form, '[part~="error"] button')!;
      assert.equal(retry.textContent?.trim(), 'Erneut versuchen');
      form.setAttribute('api-base', svc.apiBase);
      const ready = new Promise((resolve) => form.addEventListener('svc-ready', resolve, { once: true }));
      retry.click();
      await ready;
    });

    it('keeps the focus in the widget when "Try again" is pressed from the keyboard', async () => {
      let down = true;
      const original = window.fetch;
      window.fetch = (input, init) =>
        down ? Promise.reject(new TypeError('Failed to fetch')) : original(input, init);
      let errors = 0;
      const count = () => errors++;
      document.addEventListener('svc-error', count);
      try {
        const form = await mount({ attrs: { locale: 'en' }, wait: 'error' });
        const focused = () => form.shadowRoot!.activeElement?.tagName;
        $<HTMLButtonElement>(form, '[part~="error"] button')!.focus();
        const before = errors;
        await sendKeys({ press: 'Enter' });
        // Still unreachable: the focus is on the new view's "Try again", not on the page's <body>.
        await until(() => errors > before, 'a second failure');
        await until(() => focused() === 'BUTTON', 'focus on Try again');
        down = false;
        await sendKeys({ press: 'Enter' });
        await until(
          () => ['TEXTAREA', 'SVC-PRODUCT-PICKER'].includes(focused() ?? ''),
          'focus on the first field',
        );
      } finally {
        window.fetch = original;
      }
    });

    it('takes its language from the attribute, else the configuration', async () => {
      const fr = await mount({ attrs: { locale: 'fr' } });
      assert.include(text(fr), 'Demander un devis');
      const fromConfig = await mount({ attrs: { locale: '' } });
      assert.include(text(fromConfig), 'Solicitar cotización');
      fromConfig.setAttribute('locale', 'pt');
      await fromConfig.updateComplete;
      assert.include(text(fromConfig), 'Solicitar orçamento');
    });
  });

  describe('switching the language', () => {
    /** What the form shows, without the screen reader's log (what was announced stays as it was said). */
    const shown = (form: SvcQuoteForm) =>
      text(form).replace($(form, '[role="log"]')?.textContent?.replace(/\s+/g, ' ') ?? '', '');

    it('says the messages already on screen again in the new language', async () => {
      const form = await mount();
      await form.draft('Necesito 2 monitores');
      await until(() => $(form, '#svc-draft-status')?.textContent?.includes('Listo'), 'drafted');
      type($<HTMLInputElement>(form, '.line input')!, 'abc');
      type($<HTMLInputElement>(form, '#svc-coupon')!, 'NOEXISTE');
      $<HTMLButtonElement>(form, '[part="coupon"] button')!.click();
      await until(() => $(form, '#svc-coupon-status')?.textContent?.includes('no existe'), 'coupon reason');
      type($<HTMLInputElement>(form, '[name="email"]')!, 'malo@');
      await form.submit().catch(() => {});
      $<HTMLDetailsElement>(form, 'details.custom')!.open = true;
      type($<HTMLInputElement>(form, '#svc-custom-desc')!, 'Extra');
      const price = $<HTMLInputElement>(form, '#svc-custom-price')!;
      type(price, '12a');
      price.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
      await form.updateComplete;
      const spanish = shown(form);
      for (const said of [
        'Listo: 1 línea agregada.',
        'Este dato es obligatorio.',
        'Escribe un correo válido.',
      ])
        assert.include(spanish, said);
      assert.include(spanish, 'Escribe un número entero de 1 a');
      assert.include(spanish, 'Escribe un número de 0 a');
      form.setAttribute('locale', 'en');
      await form.updateComplete;
      const english = shown(form);
      for (const said of [
        'Done: 1 line added.',
        'This is required.',
        'Enter a valid email address.',
        'Enter a whole number from 1 to',
        'Enter a number from 0 to 10,000,000,000.',
        'That coupon does not exist.',
      ])
        assert.include(english, said);
      for (const word of ['Listo', 'obligatorio', 'Escribe', 'cupón']) assert.notInclude(english, word);
      assert.notInclude(
        $(form, '[role="log"]')?.textContent ?? '',
        'Listo',
        'the log is not left in Spanish',
      );
      assert.deepEqual(await axeViolations(form), []);
    });

    it('says the server’s refusals again in the new language, under the totals and in the notice', async () => {
      const form = await mount({
        attrs: { locale: 'de' },
        props: { items: [{ descripcion: 'Großer Posten', cantidad: 999_999_999, precio_unitario: 24_500 }] },
      });
      await until(() => $(form, '#svc-totals-error')?.textContent, 'the refusal');
      form.setAttribute('locale', 'en');
      await form.updateComplete;
      assert.equal(
        $(form, '#svc-totals-error')?.textContent,
        'Großer Posten: Enter a whole number from 1 to 408,163.',
      );
      const qty = $<HTMLInputElement>(form, '.line input')!;
      assert.include($(form, `#${qty.getAttribute('aria-describedby')}`)?.textContent, 'from 1 to 408,163');
      type(qty, '2');
      await until(() => form.totalsConfirmed, 'server totals');
      await fillClient(form, `Sprachen ${Date.now()}`);
      await submitRefused(form, 'cliente.email: must be a valid email address');
      assert.include($(form, '.notice[role="alert"]')?.textContent, 'Please check');
      form.setAttribute('locale', 'fr');
      await form.updateComplete;
      assert.include($(form, '.notice[role="alert"]')?.textContent, 'Vérifiez les informations du devis');
      const email = $<HTMLInputElement>(form, '[name="email"]')!;
      assert.include($(form, `#${email.getAttribute('aria-describedby')}`)?.textContent, 'Vérifiez');
    });
  });

  describe('styling', () => {
    afterEach(async () => {
      await emulateMedia({ colorScheme: 'light' });
      document.getElementById('svc-test-style')?.remove();
      document.body.style.fontFamily = '';
    });

    it('takes --svc-* custom properties, ::part() rules and the page’s font', async () => {
      const style = document.createElement('style');
      style.id = 'svc-test-style';
      style.textContent = `svc-quote-form { --svc-color-primary: rgb(200, 0, 0); --svc-radius: 3px; }
        svc-quote-form::part(totals) { outline: 3px solid rgb(0, 0, 200); }`;
      document.head.append(style);
      document.body.style.fontFamily = 'Georgia, serif';
      const form = await mount();
      await pick(form, 'Laptop');
      const submit = getComputedStyle($(form, '[part="submit"]')!);
      assert.equal(submit.backgroundColor, 'rgb(200, 0, 0)');
      assert.equal(submit.borderTopLeftRadius, '3px');
      assert.equal(getComputedStyle($(form, '[part="totals"]')!).outlineColor, 'rgb(0, 0, 200)');
      assert.include(getComputedStyle($(form, '[part~="base"]')!).fontFamily, 'Georgia');
    });

    it('keeps a light brand colour readable: dark text on it, and a darker ink for links (4.5:1)', async () => {
      const svc = await testService();
      const real = (await (
        await fetch(`${svc.directApiBase}/elements/config`, {
          headers: { authorization: `Bearer ${svc.key}` },
        })
      ).json()) as { data: { org: Record<string, unknown> } };
      await fault({
        method: 'GET',
        path: '/elements/config',
        action: 'respond',
        status: 200,
        body: { data: { ...real.data, org: { ...real.data.org, color: '#ffd60a' } } },
      });
      const form = await mount({ attrs: { 'api-base': await freshApiBase() } });
      await pick(form, 'Mouse');
      const submit = getComputedStyle($(form, '[part="submit"]')!);
      assert.equal(submit.backgroundColor, 'rgb(255, 214, 10)');
      assert.equal(submit.color, 'rgb(17, 17, 17)', 'near black on yellow');
      // The quote page's ink for this brand (brand.css?c=ffd60a: #806b05), 20 % darker.
      assert.equal(form.style.getPropertyValue('--svc-brand-ink'), '#806b05');
      const ink = getComputedStyle($(form, 'summary')!).color;
      assert.equal(getComputedStyle($(form, '[part="coupon"] button')!).color, ink);
      assert.notEqual(ink, 'rgb(255, 214, 10)');
      // axe-core measures every text: links, summaries, outlined buttons and the submit button.
      assert.deepEqual(await axeViolations(form), []);
    });

    it('draws fields with an edge of 3:1 and placeholders of 4.5:1 against the field, light and dark', async () => {
      // A colour as the screen shows it: painted on a canvas and read back (computed colours may
      // be written color-mix() or color(srgb …)).
      const canvas = document.createElement('canvas').getContext('2d', { willReadFrequently: true })!;
      const luminance = (color: string) => {
        canvas.clearRect(0, 0, 1, 1);
        canvas.fillStyle = color;
        canvas.fillRect(0, 0, 1, 1);
        const channel = (byte: number) => {
          const v = byte / 255;
          return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        };
        const [r, g, b] = canvas.getImageData(0, 0, 1, 1).data;
        return 0.2126 * channel(r!) + 0.7152 * channel(g!) + 0.0722 * channel(b!);
      };
      const contrast = (a: string, b: string) => {
        const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
        return (hi! + 0.05) / (lo! + 0.05);
      };
      for (const theme of ['light', 'dark']) {
        const form = await mount({ attrs: { theme } });
        const picker = $(form, 'svc-product-picker')!.shadowRoot!.querySelector('input')!;
        for (const field of [$(form, '[name="empresa"]')!, $(form, '#svc-draft')!, picker]) {
          const style = getComputedStyle(field);
          const edge = contrast(style.borderTopColor, style.backgroundColor);
          assert.isAtLeast(
            edge,
            3,
            `${theme} ${field.id || field.getAttribute('name')} edge ${edge.toFixed(2)}`,
          );
          const hint = contrast(getComputedStyle(field, '::placeholder').color, style.backgroundColor);
          assert.isAtLeast(
            hint,
            4.5,
            `${theme} ${field.id || field.getAttribute('name')} placeholder ${hint.toFixed(2)}`,
          );
        }
        cleanup();
      }
    });

    it('follows the system colour scheme with theme="auto"', async () => {
      await emulateMedia({ colorScheme: 'dark' });
      const auto = await mount({ attrs: { theme: 'auto' } });
      const light = await mount({ attrs: { theme: 'light' } });
      assert.equal(getComputedStyle($(auto, '[part~="base"]')!).backgroundColor, 'rgb(22, 26, 31)');
      assert.equal(getComputedStyle($(light, '[part~="base"]')!).backgroundColor, 'rgb(255, 255, 255)');
    });
  });

  describe('lines and totals', () => {
    it('adds catalog products with read-only prices and computes totals in the locale’s format', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Monitor 27');
      assert.equal($$(form, '.line').length, 1);
      assert.include(text(form), 'Monitor 27" 4K');
      // 7,800 + 16 % tax
      assert.include(totalsText(form), 'MX$7,800.00');
      assert.include(totalsText(form), 'MX$9,048.00');
      const qty = $<HTMLInputElement>(form, '.line input')!;
      assert.equal(qty.inputMode, 'numeric', 'whole pieces only');
      type(qty, '3');
      await form.updateComplete;
      assert.include(totalsText(form), 'MX$27,144.00');
      assert.isNull($(form, '.line input[name="precio"]'), 'catalog price is not editable');
      assert.deepEqual(await axeViolations(form), []);
    });

    it('shows the merchant’s usual payment plan under the totals in the form’s language', async () => {
      const plain = await mount({ attrs: { locale: 'en' } });
      assert.isNull($(plain, '[part="plan"]'), 'no line without a plan');
      plain.remove();
      const svc = await testService();
      const real = (await (
        await fetch(`${svc.directApiBase}/elements/config`, {
          headers: { authorization: `Bearer ${svc.key}` },
        })
      ).json()) as { data: Record<string, unknown> };
      const texto = { es: '50 % de anticipo, después el saldo', en: '50 % deposit, then the balance' };
      for (const locale of ['en', 'es'] as const) {
        await fault({
          method: 'GET',
          path: '/elements/config',
          action: 'respond',
          status: 200,
          body: { data: { ...real.data, plan_pagos: { tipo: 'anticipo', porcentaje: 50, texto } } },
        });
        const form = await mount({ attrs: { locale, 'api-base': await freshApiBase() } });
        await pick(form, 'Monitor 27');
        const line = $(form, '[part="plan"]');
        assert.equal(line?.textContent, texto[locale]);
        // Under the totals.
        const totals = $(form, '[part="totals"]')!;
        assert.ok(totals.compareDocumentPosition(line!) & Node.DOCUMENT_POSITION_FOLLOWING);
        assert.deepEqual(await axeViolations(form), []);
        form.remove();
      }
    });

    it('allows decimal quantities where the unit allows and removes lines', async () => {
      const form = await mount({ attrs: { locale: 'de' } });
      await pick(form, 'consultoría');
      const qty = $<HTMLInputElement>(form, '.line input')!;
      assert.notEqual(qty.step, '1');
      type(qty, '1.5');
      await form.updateComplete;
      // 1.5 × 1,200? read the server figure: whatever it is, the line keeps 1.5
      assert.equal(form.lines[0]?.cantidad, 1.5);
      $<HTMLButtonElement>(form, '.line button')!.click();
      await form.updateComplete;
      assert.equal($$(form, '.line').length, 0);
    });

    it('takes a German decimal comma in quantities and prices, and says when a quantity is not one', async () => {
      const form = await mount({ attrs: { locale: 'de' } });
      await pick(form, 'consultoría');
      const qty = $<HTMLInputElement>(form, '.line input')!;
      await retype(form, qty, '2,5');
      assert.equal(form.lines[0]?.cantidad, 2.5);
      assert.equal(qty.value, '2,5');
      $<HTMLDetailsElement>(form, 'details.custom')!.open = true;
      $<HTMLInputElement>(form, '#svc-custom-desc')!.focus();
      await sendKeys({ type: 'Sonderleistung' });
      await sendKeys({ press: 'Tab' });
      await sendKeys({ type: '1234,56' });
      await sendKeys({ press: 'Enter' });
      await form.updateComplete;
      assert.equal(form.lines[1]?.precio_unitario, 1234.56);
      assert.include(text(form), '1.234,56');
      // Text that is not a number: a message tied to the field, the basket unchanged.
      await retype(form, qty, 'zwei');
      assert.equal(qty.getAttribute('aria-invalid'), 'true');
      const message = $(form, `#${qty.getAttribute('aria-describedby')}`)?.textContent ?? '';
      assert.match(message, /^Geben Sie eine Zahl von 0,001 bis [\d.]+(,\d+)? ein\.$/);
      assert.equal(form.lines[0]?.cantidad, 2.5);
      assert.equal(qty.value, 'zwei', 'what was typed stays to be corrected');
      assert.deepEqual(await axeViolations(form), []);
      // The form is not sent while a quantity is wrong: the focus goes to it.
      await fillClient(form, `Komma ${Date.now()}`);
      const failure = await form.submit().then(
        () => undefined,
        (e: { code: string }) => e,
      );
      assert.equal(failure?.code, 'invalid_request');
      assert.equal(form.shadowRoot!.activeElement, qty);
      // A price that is not a number.
      $<HTMLInputElement>(form, '#svc-custom-desc')!.focus();
      await sendKeys({ type: 'Extra' });
      await sendKeys({ press: 'Tab' });
      await sendKeys({ type: '12a' });
      await sendKeys({ press: 'Enter' });
      await form.updateComplete;
      const price = $<HTMLInputElement>(form, '#svc-custom-price')!;
      assert.equal(price.getAttribute('aria-invalid'), 'true');
      assert.include($(form, '#svc-custom-error')?.textContent, 'Geben Sie eine Zahl von 0 bis');
      assert.equal(form.lines.length, 2);
    });

    it('keeps whole units whole and a line within the service’s limit, with localized messages', async () => {
      const form = await mount({ attrs: { locale: 'fr' } });
      await pick(form, 'Laptop 14');
      const qty = $<HTMLInputElement>(form, '.line input')!;
      for (const [typed, message] of [
        ['2,5', /^Saisissez un nombre entier de 1 à 408\u202f163\.$/],
        // 24,500 each: at most 10,000,000,000 a line.
        ['999999999', /^Saisissez un nombre entier de 1 à 408\u202f163\.$/],
        ['0', /nombre entier de 1/],
      ] as const) {
        type(qty, typed);
        await form.updateComplete;
        assert.match($(form, '.line .error-text')?.textContent ?? '', message, typed);
        assert.equal(form.lines[0]?.cantidad, 1, typed);
      }
      type(qty, '1 500');
      await form.updateComplete;
      assert.equal(form.lines[0]?.cantidad, 1500);
      assert.equal(qty.value, '1500');
      assert.isNull($(form, '.line .error-text'));
      assert.equal(qty.getAttribute('aria-invalid'), 'false');
    });

    it('goes back to what a line held when the quantity typed is not one it takes, the text left to correct', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Laptop 14');
      await until(() => form.totalsConfirmed, 'confirmed');
      const changes: CustomEvent[] = [];
      form.addEventListener('svc-change', (e) => changes.push(e));
      const qty = $<HTMLInputElement>(form, '.line input')!;
      // 24,500 each, 16 % tax: one laptop is MX$28,420.00.
      for (const [typed, onTheWay] of [
        ['2.5', 2],
        ['99999999999', 99_999],
      ] as const) {
        await retype(form, qty, typed, false);
        assert.equal(form.lines[0]?.cantidad, onTheWay, `${typed}: taken while typing`);
        await sendKeys({ press: 'Enter' });
        await form.updateComplete;
        assert.equal(form.lines[0]?.cantidad, 1, typed);
        assert.equal(qty.value, typed, 'what was typed stays to be corrected');
        assert.equal(qty.getAttribute('aria-invalid'), 'true');
        assert.match($(form, '.line .error-text')?.textContent ?? '', /whole number from 1 to 408,163/);
        assert.equal($(form, '.line .amount')?.textContent, 'MX$24,500.00');
        assert.equal(changes.at(-1)?.detail.items[0].cantidad, 1, 'the page hears the line as it is');
        await until(() => form.totalsConfirmed, 'confirmed again');
        assert.include(totalsText(form), 'MX$28,420.00');
      }
      // submit() while a wrong quantity is still being typed: refused there, nothing sent.
      await retype(form, qty, '2.5', false);
      await fillClient(form, `Tecleando ${Date.now()}`);
      const failure = await form.submit().then(
        () => undefined,
        (e: { code: string }) => e,
      );
      assert.equal(failure?.code, 'invalid_request');
      assert.equal(form.lines[0]?.cantidad, 1);
      assert.equal(form.shadowRoot!.activeElement, qty);
      // Corrected: taken, and the message goes.
      await retype(form, qty, '3');
      assert.equal(form.lines[0]?.cantidad, 3);
      assert.equal(qty.getAttribute('aria-invalid'), 'false');
      assert.isNull($(form, '.line .error-text'));
    });

    it('adds a custom line on Enter in its fields, and Enter in a quantity sends nothing', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await fillClient(form, `Enter ${Date.now()}`);
      await pick(form, 'Monitor 27');
      await requestLog();
      $<HTMLDetailsElement>(form, 'details.custom')!.open = true;
      $<HTMLInputElement>(form, '#svc-custom-desc')!.focus();
      await sendKeys({ type: 'Instalación' });
      await sendKeys({ press: 'Enter' });
      // Without a price the line waits for it, with the focus there.
      assert.equal(form.shadowRoot!.activeElement?.id, 'svc-custom-price');
      await sendKeys({ type: '350' });
      await sendKeys({ press: 'Enter' });
      await form.updateComplete;
      assert.deepEqual(
        form.lines.map((l) => l.descripcion),
        ['Monitor 27" 4K', 'Instalación'],
      );
      let submitted = 0;
      $(form, 'form')!.addEventListener('submit', () => submitted++);
      $<HTMLInputElement>(form, '.line input')!.focus();
      await sendKeys({ press: 'Enter' });
      await form.updateComplete;
      assert.equal(submitted, 0, 'Enter in a quantity does not submit the form');
      const log = await requestLog();
      assert.notOk(
        log.some((l) => l.path === '/cotizaciones'),
        'Enter in the lines sent no quote',
      );
      assert.notOk($(form, '[part~="success"]'));
    });

    it('says a custom line needs its description, at that field, and clears it on typing', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      $<HTMLDetailsElement>(form, 'details.custom')!.open = true;
      const desc = $<HTMLInputElement>(form, '#svc-custom-desc')!;
      const price = $<HTMLInputElement>(form, '#svc-custom-price')!;
      price.focus();
      await sendKeys({ type: '350' });
      await sendKeys({ press: 'Enter' });
      await form.updateComplete;
      assert.equal(form.lines.length, 0, 'no line without a description');
      assert.equal(form.shadowRoot!.activeElement, desc);
      assert.equal(desc.getAttribute('aria-invalid'), 'true');
      assert.equal(price.getAttribute('aria-invalid'), 'false', 'the price is not what is wrong');
      assert.equal($(form, `#${desc.getAttribute('aria-describedby')}`)?.textContent, 'This is required.');
      assert.deepEqual(await axeViolations(form), []);
      await sendKeys({ type: 'Instalación' });
      await form.updateComplete;
      assert.equal(desc.getAttribute('aria-invalid'), 'false');
      assert.isNull(desc.getAttribute('aria-describedby'));
      assert.isNull($(form, '#svc-custom-error'));
      await sendKeys({ press: 'Enter' });
      await form.updateComplete;
      assert.deepEqual(
        form.lines.map((l) => [l.descripcion, l.precio_unitario]),
        [['Instalación', 350]],
      );
    });

    for (const width of [360, 720]) {
      it(`lines up quantities and amounts with the totals, tabbed in the order seen, at ${width} px`, async () => {
        const form = await mount({ attrs: { locale: 'de' }, width: `${width}px` });
        await pick(form, 'Laptop 14');
        await pick(form, 'Mouse');
        await pick(form, 'consultoría');
        type($$<HTMLInputElement>(form, '.line input')[0]!, '12');
        await form.updateComplete;
        const box = (e: Element) => e.getBoundingClientRect();
        const quantities = $$(form, '.line input').map(box);
        const amounts = $$(form, '.line .amount').map(box);
        const total = box($(form, '.totals .grand dd')!);
        for (const q of quantities) {
          assert.closeTo(q.left, quantities[0]!.left, 0.5, 'quantity boxes in one column');
          assert.closeTo(q.right, quantities[0]!.right, 0.5, 'quantity boxes in one column');
        }
        for (const a of amounts) assert.closeTo(a.right, total.right, 0.5, 'amounts end where the totals do');
        // Tab order = reading order: each focusable starts below, or right of, the one before.
        const stops = $$(form, '.lines button, .lines input').map(box);
        for (let i = 1; i < stops.length; i++) {
          const [a, b] = [stops[i - 1]!, stops[i]!];
          assert.ok(
            b.top >= a.bottom - 1 || (b.left >= a.right && b.top < a.bottom),
            `stop ${i} after stop ${i - 1}`,
          );
        }
      });
    }

    it('keeps the focus in the list when a line is removed', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Monitor 27');
      await pick(form, 'Laptop 14');
      $<HTMLButtonElement>(form, '.line button')!.focus();
      $<HTMLButtonElement>(form, '.line button')!.click();
      await until(() => form.shadowRoot!.activeElement?.matches('.line button'), 'focus on the next line');
      assert.include(form.shadowRoot!.activeElement!.getAttribute('aria-label')!, 'Laptop 14');
      $<HTMLButtonElement>(form, '.line button')!.click();
      await until(() => form.shadowRoot!.activeElement?.id === 'svc-lines-empty', 'focus on the empty list');
    });

    it('reconciles its totals with the server’s preview', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Laptop 14');
      await until(
        () => requestLog().then((log) => log.some((l) => l.path === '/elements/preview')),
        'preview',
      );
      await until(() => form.totalsConfirmed, 'server totals');
      assert.include(totalsText(form), 'MX$28,420.00');
    });

    it('quotes in another currency of the merchant, priced as the server prices it', async () => {
      const form = await mount({ attrs: { locale: 'en', currency: 'usd' } });
      assert.equal(form.activeCurrency, 'USD');
      await pick(form, 'Monitor 27');
      // 7,800 MXN at the demo's 18.5 MXN a dollar: 421.62; + 16 % tax: 489.08.
      assert.equal(form.lines[0]?.precio_unitario, 421.62);
      assert.include(totalsText(form), '489.08');
      await until(() => form.totalsConfirmed, 'server totals');
      assert.include(totalsText(form), '489.08');
      await fillClient(form, `Imprenta Sol ${Date.now()}`, 'compras@sol.example');
      const created = await form.submit();
      assert.equal(created.moneda, 'USD');
      assert.equal(created.total, 489.08);
      // Back to the merchant's own currency: the catalog line takes the catalog price again.
      const other = await mount({ attrs: { locale: 'en' } });
      await pick(other, 'Monitor 27');
      other.currency = 'USD';
      await other.updateComplete;
      assert.equal(other.lines[0]?.precio_unitario, 421.62);
      other.currency = 'EUR';
      await other.updateComplete;
      assert.equal(other.activeCurrency, 'MXN', 'EUR is not among the merchant’s currencies');
      assert.equal(other.lines[0]?.precio_unitario, 7800);
    });

    it('says why the server refuses the basket under the totals and on the line, and stops waiting', async () => {
      // 999,999,999 at 24,500: beyond the service's 10,000,000,000 a line (prefilled, so not typed).
      const form = await mount({
        attrs: { locale: 'de' },
        props: { items: [{ descripcion: 'Großer Posten', cantidad: 999_999_999, precio_unitario: 24_500 }] },
      });
      const errors: CustomEvent<SvcErrorDetail>[] = [];
      form.addEventListener('svc-error', (e) => errors.push(e));
      const refusal = await until(() => $(form, '#svc-totals-error')?.textContent, 'the refusal');
      // The page hears it too, in the form's language.
      assert.equal(errors.length, 1);
      assert.equal(errors[0]!.detail.code, 'invalid_request');
      assert.isNotEmpty(errors[0]!.detail.error);
      assert.equal(refusal, 'Großer Posten: Geben Sie eine ganze Zahl von 1 bis 408.163 ein.');
      assert.equal($(form, '#svc-totals-error')?.getAttribute('role'), 'alert');
      assert.equal($(form, '[part="totals"]')?.getAttribute('aria-busy'), 'false', 'no longer pending');
      const qty = $<HTMLInputElement>(form, '.line input')!;
      assert.equal(qty.getAttribute('aria-invalid'), 'true');
      assert.include($(form, `#${qty.getAttribute('aria-describedby')}`)?.textContent, 'bis 408.163 ein');
      assert.deepEqual(await axeViolations(form), []);
      // Corrected: the message goes, and the server's figures come.
      type(qty, '2');
      await until(() => form.totalsConfirmed, 'server totals');
      await form.updateComplete;
      assert.equal($(form, '#svc-totals-error')?.textContent, '');
      assert.equal(qty.getAttribute('aria-invalid'), 'false');
      // Refused on submission: the field the message names is marked, the reason said in German.
      await fillClient(form, `Grenze ${Date.now()}`);
      await submitRefused(form, 'cliente.email: must be a valid email address');
      const email = $<HTMLInputElement>(form, '[name="email"]')!;
      assert.equal(email.getAttribute('aria-invalid'), 'true');
      assert.include($(form, `#${email.getAttribute('aria-describedby')}`)?.textContent, 'Bitte prüfen Sie');
    });

    it('says the new total in the screen reader’s log once the basket stands still, once for a burst of edits', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      const log = () => $$(form, '[role="log"] p').map((p) => p.textContent ?? '');
      assert.equal($(form, '[role="log"]')!.getAttribute('aria-live'), 'polite');
      await pick(form, 'Monitor 27');
      // 7,800 + 16 % tax.
      await until(() => log().includes('Total: MX$9,048.00'), 'the total said', 5000);
      const qty = $<HTMLInputElement>(form, '.line input')!;
      // Edits a moment apart: each is confirmed by the server, none waits a second for the next.
      for (const quantity of ['2', '3', '4']) {
        type(qty, quantity);
        await until(() => form.totalsConfirmed, `the preview of ${quantity}`);
        await new Promise((r) => setTimeout(r, 300));
      }
      await until(() => log().includes('Total: MX$36,192.00'), 'the last total said', 5000);
      await new Promise((r) => setTimeout(r, 1300));
      assert.deepEqual(
        log().filter((line) => line.startsWith('Total')),
        ['Total: MX$9,048.00', 'Total: MX$36,192.00'],
      );
    });

    it('fires svc-change with the basket', async () => {
      const form = await mount();
      const changes: CustomEvent[] = [];
      form.addEventListener('svc-change', (e) => changes.push(e));
      await pick(form, 'Mouse');
      assert.equal(changes.at(-1)?.detail.items[0].cantidad, 1);
      assert.equal(changes.at(-1)?.detail.moneda, 'MXN');
    });

    it('tells the page of a prefilled basket once ready and priced, never before svc-ready', async () => {
      const heard: string[] = [];
      const listen = (e: Event) => heard.push(`${e.type}:${(e as CustomEvent).detail?.total ?? ''}`);
      document.addEventListener('svc-ready', listen);
      document.addEventListener('svc-change', listen);
      try {
        await mount({ props: { items: [{ descripcion: 'Diseño', cantidad: 2, precio_unitario: 100 }] } });
        assert.deepEqual(heard.slice(0, 2), ['svc-ready:', 'svc-change:232']);
      } finally {
        document.removeEventListener('svc-ready', listen);
        document.removeEventListener('svc-change', listen);
      }
    });

    it('keeps working when the page sets null or anything else as cliente or items', async () => {
      const form = await mount({ props: { cliente: null as never, items: 'abc' as never } });
      assert.equal($$(form, '.line').length, 0);
      form.items = null as never;
      form.cliente = 7 as never;
      await form.updateComplete;
      await pick(form, 'Mouse');
      await fillClient(form, `Nulos ${Date.now()}`, `nulos-${Date.now()}@x.example`);
      const created = await form.submit();
      assert.match(created.folio, /^COT-/);
    });

    it('goes back to the prefilled client on reset(), a tax id given as rfc included', async () => {
      const form = await mount({ props: { cliente: { empresa: 'Acme Corp', rfc: 'XAXX010101000' } } });
      const taxId = () => $<HTMLInputElement>(form, '[name="tax_id"]')!.value;
      assert.equal(taxId(), 'XAXX010101000');
      type($<HTMLInputElement>(form, '[name="tax_id"]')!, 'OTRO010101AB1');
      type($<HTMLInputElement>(form, '[name="empresa"]')!, 'Otra');
      form.reset();
      await form.updateComplete;
      assert.equal(taxId(), 'XAXX010101000');
      assert.equal($<HTMLInputElement>(form, '[name="empresa"]')!.value, 'Acme Corp');
    });

    it('is prefilled from the cliente and items properties', async () => {
      const form = await mount({
        props: {
          cliente: { empresa: 'Acme Corp', email: 'ana@acme.example' },
          items: [{ descripcion: 'Diseño a medida', cantidad: 2, precio_unitario: 100 }],
        },
      });
      assert.equal($<HTMLInputElement>(form, '[name="empresa"]')!.value, 'Acme Corp');
      assert.equal($<HTMLInputElement>(form, '[name="email"]')!.value, 'ana@acme.example');
      assert.equal($$(form, '.line').length, 1);
    });
  });

  describe('coupons', () => {
    for (const [code, expected] of [
      ['EXPIRADO', 'ya venció'],
      ['AGOTADO', 'se agotó'],
      ['INACTIVO', 'no está activo'],
      ['NOEXISTE', 'no existe'],
      ['USD50', 'otra moneda'],
    ] as const) {
      it(`says why coupon ${code} is not valid`, async () => {
        const form = await mount();
        await pick(form, 'Laptop 14');
        type($<HTMLInputElement>(form, '#svc-coupon')!, code);
        $<HTMLButtonElement>(form, '[part="coupon"] button')!.click();
        const status = await until(
          () =>
            ($(form, '#svc-coupon-status')?.textContent ?? '').includes(expected) &&
            $(form, '#svc-coupon-status'),
          `reason ${expected}`,
        );
        assert.equal($(form, '#svc-coupon')!.getAttribute('aria-invalid'), 'true');
        assert.ok(status);
        assert.deepEqual(await axeViolations(form), []);
      });
    }

    it('does not send a code the service refused again with each edit of the basket, only when applied again', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Laptop 14');
      const sent: { cupon?: string }[] = [];
      const original = window.fetch;
      window.fetch = (input, init) => {
        if (String(input).endsWith('/elements/preview')) sent.push(JSON.parse(String(init?.body)));
        return original(input, init);
      };
      try {
        type($<HTMLInputElement>(form, '#svc-coupon')!, 'NOEXISTE');
        $<HTMLButtonElement>(form, '[part="coupon"] button')!.click();
        const status = $(form, '#svc-coupon-status')!;
        await until(() => status.textContent === 'That coupon does not exist.', 'refused');
        assert.deepEqual(
          sent.map((body) => body.cupon),
          ['NOEXISTE'],
        );
        // Each refusal counts against the visitor's failed attempts: edits send the basket alone.
        type($<HTMLInputElement>(form, '.line input')!, '2');
        await until(() => form.totalsConfirmed && sent.length === 2, 'the edit confirmed');
        await pick(form, 'Mouse');
        await until(() => form.totalsConfirmed && sent.length === 3, 'the next edit confirmed');
        assert.deepEqual(
          sent.map((body) => body.cupon),
          ['NOEXISTE', undefined, undefined],
        );
        assert.equal(status.textContent, 'That coupon does not exist.', 'still said');
        assert.equal($(form, '#svc-coupon')!.getAttribute('aria-invalid'), 'true');
        // Applied again, it is checked again.
        $<HTMLButtonElement>(form, '[part="coupon"] button')!.click();
        await until(() => sent.length === 4 && form.totalsConfirmed, 'checked again');
        assert.equal(sent[3]!.cupon, 'NOEXISTE');
      } finally {
        window.fetch = original;
      }
    });

    it('says a lockout of refused codes at the coupon and confirms the basket without it', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Laptop 14');
      await until(() => form.totalsConfirmed, 'confirmed');
      const errors: CustomEvent<SvcErrorDetail>[] = [];
      form.addEventListener('svc-error', (e) => errors.push(e));
      // The service's answer once a visitor has used up their failed coupon attempts.
      await fault({
        method: 'POST',
        path: '/elements/preview',
        action: 'respond',
        status: 429,
        headers: { 'Retry-After': '3600' },
        body: {
          error: 'Too many invalid coupon codes from this address. Retry after 3600 s.',
          code: 'rate_limited',
        },
      });
      type($<HTMLInputElement>(form, '#svc-coupon')!, 'OTRO');
      $<HTMLButtonElement>(form, '[part="coupon"] button')!.click();
      const status = $(form, '#svc-coupon-status')!;
      await until(() => status.textContent?.includes('Too many requests'), 'said at the coupon');
      assert.equal($(form, '#svc-coupon')!.getAttribute('aria-invalid'), 'true');
      await until(() => form.totalsConfirmed, 'the basket confirmed without the coupon');
      await form.updateComplete;
      assert.equal($(form, '#svc-totals-error')?.textContent, '', 'nothing said under the totals');
      assert.include(totalsText(form), 'MX$28,420.00');
      assert.deepEqual(
        errors.map((e) => e.detail.code),
        ['rate_limited'],
      );
      const log = (await requestLog()).filter((entry) => entry.path.endsWith('/elements/preview'));
      assert.deepEqual(
        log.slice(-2).map((entry) => [entry.status, entry.fault]),
        [
          [429, 'respond'],
          [200, null],
        ],
      );
    });

    it('applies a valid coupon and shows the discount in the totals', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Laptop 14');
      type($<HTMLInputElement>(form, '#svc-coupon')!, 'bienvenida10');
      $<HTMLButtonElement>(form, '[part="coupon"] button')!.click();
      await until(() => /BIENVENIDA10/.test($(form, '#svc-coupon-status')?.textContent ?? ''), 'applied');
      // 24,500 − 2,450 = 22,050; tax 3,528; total 25,578
      await until(() => totalsText(form).includes('MX$25,578.00'), 'discounted total');
      assert.include(totalsText(form), '−MX$2,450.00');
      // The page hears the discounted total too, once the server has priced the coupon.
      const changes: CustomEvent[] = [];
      form.addEventListener('svc-change', (e) => changes.push(e));
      await pick(form, 'Mouse');
      await until(() => changes.some((e) => e.detail.total < changes[0]!.detail.total), 'confirmed total');
      const told = changes.at(-1)!.detail.total as number;
      const shown = told.toLocaleString('en', { minimumFractionDigits: 2 });
      await until(() => totalsText(form).includes(shown), `the total told, ${shown}, on screen`);
      assert.deepEqual(await axeViolations(form), []);
    });

    it('keeps a coupon applied to an empty basket and says, in a live region, that it will apply with products', async () => {
      const form = await mount();
      const input = $<HTMLInputElement>(form, '#svc-coupon')!;
      const status = $(form, '#svc-coupon-status')!;
      const changes: number[] = [];
      form.addEventListener('svc-change', (e) => changes.push(e.detail.total));
      type(input, 'bienvenida10');
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
      await form.updateComplete;
      assert.equal(status.textContent, 'Se aplicará al agregar productos.');
      assert.equal(status.getAttribute('role'), 'status');
      // The basket did not change: the page hears nothing.
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(changes, []);
      assert.include(input.getAttribute('aria-describedby'), 'svc-coupon-status');
      assert.equal(input.value, 'bienvenida10', 'the code stays');
      assert.deepEqual(await axeViolations(form), []);
      form.setAttribute('locale', 'de');
      await form.updateComplete;
      assert.equal(status.textContent, 'Gilt, sobald Sie Produkte hinzufügen.');
      // Checked, and applied, once there is a line: the page hears the line, then its discount.
      await pick(form, 'Laptop 14');
      await until(
        () => status.textContent?.includes('Gutschein BIENVENIDA10 eingelöst: −2.450,00'),
        'applied',
      );
      await until(() => changes.length === 2, 'the discounted total told');
      assert.deepEqual(changes, [28_420, 25_578]);
      // The basket emptied again: kept, never "−0,00".
      const said: string[] = [];
      new MutationObserver(() => said.push(status.textContent ?? '')).observe(status, {
        childList: true,
        characterData: true,
        subtree: true,
      });
      $<HTMLButtonElement>(form, '.line button')!.click();
      await form.updateComplete;
      assert.equal(status.textContent, 'Gilt, sobald Sie Produkte hinzufügen.');
      await new Promise((r) => setTimeout(r, 400));
      assert.isFalse(
        said.some((text) => text.includes('0,00')),
        said.join(' | '),
      );
      assert.equal(status.textContent, 'Gilt, sobald Sie Produkte hinzufügen.');
      for (const locale of ['en', 'pt', 'fr', 'es']) {
        form.setAttribute('locale', locale);
        await form.updateComplete;
        assert.isNotEmpty(status.textContent, locale);
      }
    });

    it('keeps a valid coupon’s discount and totals while a changed basket’s preview is on its way', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Laptop 14');
      type($<HTMLInputElement>(form, '#svc-coupon')!, 'BIENVENIDA10');
      $<HTMLButtonElement>(form, '[part="coupon"] button')!.click();
      const status = $(form, '#svc-coupon-status')!;
      await until(() => status.textContent?.includes('−MX$2,450.00'), 'applied');
      await until(() => form.totalsConfirmed, 'confirmed');
      // Everything the status line (a live region) says from here on.
      const said: string[] = [];
      const observer = new MutationObserver(() => said.push(status.textContent ?? ''));
      observer.observe(status, { childList: true, characterData: true, subtree: true });
      await fault({ method: 'POST', path: '/elements/preview', action: 'delay', delayMs: 1500 });
      type($<HTMLInputElement>(form, '.line input')!, '2');
      await form.updateComplete;
      for (const wait of [50, 400, 500]) {
        await new Promise((r) => setTimeout(r, wait));
        assert.isFalse(form.totalsConfirmed, 'still waiting for the preview');
        assert.include(status.textContent, 'Coupon BIENVENIDA10 applied: −MX$2,450.00');
        // The last confirmed figures, marked busy: the discount stays, the total does not jump.
        assert.include(totalsText(form), '−MX$2,450.00');
        assert.include(totalsText(form), 'MX$25,578.00');
        assert.equal($(form, '[part="totals"]')?.getAttribute('aria-busy'), 'true');
      }
      await until(() => form.totalsConfirmed, 'the new preview', 5000);
      await form.updateComplete;
      assert.include(status.textContent, '−MX$4,900.00');
      assert.include(totalsText(form), 'MX$51,156.00');
      observer.disconnect();
      assert.deepEqual(
        said.filter((text, i) => text !== said[i - 1]),
        ['Coupon BIENVENIDA10 applied: −MX$4,900.00'],
        'one announcement, of the new discount',
      );
      // Another currency: the coupon is checked again (it may not apply), never shown at 0.00.
      form.currency = 'USD';
      await form.updateComplete;
      assert.equal(status.textContent, 'Checking the coupon…');
      assert.notInclude(totalsText(form), 'MX$');
      await until(() => form.totalsConfirmed, 'the preview in dollars', 5000);
      await form.updateComplete;
      assert.match(status.textContent ?? '', /^Coupon BIENVENIDA10 applied: −\$[1-9][\d,.]+$/);
    });
  });

  describe('client data and submission', () => {
    it('focuses the first error in the form’s order: the empty list before the client’s fields', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await form.submit().catch(() => {});
      await form.updateComplete;
      assert.equal(form.shadowRoot!.activeElement?.id, 'svc-lines-empty');
      assert.equal($(form, '[name="empresa"]')!.getAttribute('aria-invalid'), 'true', 'the client’s too');
    });

    it('sends no coupon the service refused: its field, saying why, takes the focus', async () => {
      const form = await mount();
      await pick(form, 'Laptop 14');
      type($<HTMLInputElement>(form, '#svc-coupon')!, 'AGOTADO');
      $<HTMLButtonElement>(form, '[part="coupon"] button')!.click();
      await until(() => ($(form, '#svc-coupon-status')?.textContent ?? '').includes('se agotó'), 'refused');
      await fillClient(form, `Cupón Agotado ${Date.now()}`, `agotado-${Date.now()}@x.example`);
      await requestLog();
      let rejected: unknown;
      await form.submit().catch((e) => {
        rejected = e;
      });
      assert.equal((rejected as { code: string }).code, 'invalid_request');
      assert.include((rejected as Error).message, 'se agotó');
      await form.updateComplete;
      assert.equal(form.shadowRoot!.activeElement?.id, 'svc-coupon');
      assert.notOk(
        (await requestLog()).some((l) => l.path === '/cotizaciones'),
        'nothing was sent',
      );
      // Cleared, the quote goes without it.
      type($<HTMLInputElement>(form, '#svc-coupon')!, '');
      $<HTMLButtonElement>(form, '[part="coupon"] button')!.click();
      const created = await form.submit();
      assert.match(created.folio, /^COT-/);
    });

    it('validates inline and sends nothing while the client data is wrong', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      const errors: SvcErrorDetail[] = [];
      form.addEventListener('svc-error', (e) => errors.push(e.detail));
      let rejected: unknown;
      await form.submit().catch((e) => {
        rejected = e;
      });
      assert.equal((rejected as { code: string }).code, 'invalid_request');
      assert.deepEqual(
        errors.map((e) => e.code),
        ['invalid_request'],
        'the refusal is an svc-error too',
      );
      await form.updateComplete;
      assert.equal($(form, '[name="empresa"]')!.getAttribute('aria-invalid'), 'true');
      assert.equal($(form, '[name="email"]')!.getAttribute('aria-invalid'), 'true', 'email is required');
      assert.include(text(form), 'Add at least one product');
      type($<HTMLInputElement>(form, '[name="email"]')!, 'not-an-email');
      type($<HTMLInputElement>(form, '[name="telefono"]')!, '5512345678');
      await form.submit().catch(() => {});
      await form.updateComplete;
      assert.include(text(form), 'Enter a valid email address');
      assert.include(text(form), 'country code');
      assert.deepEqual(await axeViolations(form), []);
      const log = await requestLog();
      assert.notOk(
        log.some((l) => l.path === '/cotizaciones'),
        'nothing was sent',
      );
    });

    it('sends the tax data it was given with the client, its section open', async () => {
      const empresa = `Fiscal Luna ${Date.now()}`;
      const fiscal = { country: 'MX', tax_id: 'LUN010101AB1', legal_name: 'Luna', cp_fiscal: '06700' };
      const form = await mount({
        attrs: { locale: 'en' },
        props: { cliente: { empresa, email: `fiscal-${Date.now()}@luna.example`, fiscal } },
      });
      await pick(form, 'Laptop 14');
      assert.isTrue($<HTMLDetailsElement>(form, '[part="client"] details')!.open);
      const sent: string[] = [];
      const original = window.fetch;
      window.fetch = (input, init) => {
        if (String(input).endsWith('/cotizaciones') && init?.method === 'POST') sent.push(String(init.body));
        return original(input, init);
      };
      try {
        await form.submit();
      } finally {
        window.fetch = original;
      }
      assert.deepInclude(JSON.parse(sent[0]!).cliente, { empresa, fiscal });
      // "New quote" starts again with the focus on the form's first field.
      await form.updateComplete;
      $<HTMLButtonElement>(form, '[part~="success"] button')!.click();
      await until(() => !$(form, '[part~="success"]'), 'the form again');
      await until(() => form.shadowRoot!.activeElement, 'a focused field');
      const focused = form.shadowRoot!.activeElement!;
      assert.ok(
        focused.matches('[part="draft"] textarea') || focused.matches('svc-product-picker'),
        `focus on ${focused.tagName}`,
      );
    });

    it('takes the tax country of a client given after it loaded', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      form.cliente = { empresa: 'Olivo SL', fiscal: { country: 'ES', tax_id: 'B12345678' } };
      await form.updateComplete;
      assert.isTrue($<HTMLDetailsElement>(form, '[part="client"] details')!.open);
      assert.equal($<HTMLInputElement>(form, '[name="country"]')!.value, 'ES');
      assert.notOk($(form, '[name="regimen_fiscal"]'), 'no Mexican fields for a Spanish client');
    });

    it('asks for the Mexican tax fields only when the tax country is MX', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      const details = $<HTMLDetailsElement>(form, '[part="client"] details')!;
      details.open = true;
      await until(() => $(form, '[name="country"]'), 'tax fields');
      type($<HTMLInputElement>(form, '[name="country"]')!, 'MX');
      await form.updateComplete;
      assert.ok($(form, '[name="regimen_fiscal"]'));
      type($<HTMLInputElement>(form, '[name="country"]')!, 'ES');
      await form.updateComplete;
      assert.notOk($(form, '[name="regimen_fiscal"]'));
      type($<HTMLInputElement>(form, '[name="country"]')!, 'XX');
      type($<HTMLInputElement>(form, '[name="tax_id"]')!, 'B12345678');
      await form.submit().catch(() => {});
      await form.updateComplete;
      assert.equal($(form, '[name="country"]')!.getAttribute('aria-invalid'), 'true');
    });

    it('submits once with one Idempotency-Key after a dropped connection, then shows the success view', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Laptop 14');
      const empresa = `Papelería Luna ${Date.now()}`;
      await fillClient(form, empresa);
      await requestLog();
      await fault({ method: 'POST', path: '/cotizaciones', action: 'drop-after' });
      const created: CustomEvent[] = [];
      form.addEventListener('svc-quote-created', (e) => created.push(e));
      // Two clicks and a call: one submission.
      $<HTMLButtonElement>(form, '[part="submit"]')!.click();
      $<HTMLButtonElement>(form, '[part="submit"]')!.click();
      const result: QuoteCreated = await form.submit();
      await form.updateComplete;
      const posts = (await requestLog()).filter((l) => l.path === '/cotizaciones');
      assert.equal(posts.length, 2, 'the dropped one and its retry');
      assert.match(posts[0]!.key!, /^[0-9a-f-]{36}$/);
      assert.equal(posts[1]!.key, posts[0]!.key);
      assert.equal(posts[0]!.fault, 'drop-after');
      const quotes = await quotesOf(empresa);
      assert.equal(quotes.length, 1, 'exactly one quote');
      assert.match(result.folio, /^COT-\d{6}$/);
      assert.equal(created.length, 1);
      // Exactly the design's detail.
      assert.deepEqual(created[0]!.detail, {
        id: result.id,
        folio: result.folio,
        link_publico: result.link_publico,
        needs_approval: result.needs_approval,
      });
      const success = $(form, '[part~="success"]')!;
      assert.include(success.textContent, result.folio);
      assert.include(success.textContent, 'MX$28,420.00');
      // The focused heading is seen, and heard with the folio and the total.
      const heading = success.querySelector('h2')!;
      assert.equal(form.shadowRoot!.activeElement, heading);
      const ring = getComputedStyle(heading);
      assert.equal(ring.outlineStyle, 'solid');
      assert.equal(ring.outlineWidth, '2px');
      const described = $(form, `#${heading.getAttribute('aria-describedby')}`)?.textContent ?? '';
      assert.include(described, result.folio);
      assert.include(described, 'MX$28,420.00');
      assert.equal(success.querySelector('a')!.getAttribute('href'), result.link_publico);
      assert.deepEqual(await axeViolations(form), []);
      form.reset();
      await form.updateComplete;
      assert.ok($(form, '[part="submit"]'));
      assert.equal($$(form, '.line').length, 0);
    });

    it('keeps the focus on the submit button while sending, and sends once however often it is pressed', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Mouse');
      await fillClient(form, `Focus ${Date.now()}`);
      await requestLog();
      await fault({ method: 'POST', path: '/cotizaciones', action: 'delay', delayMs: 1500 });
      const button = $<HTMLButtonElement>(form, '[part="submit"]')!;
      button.focus();
      await sendKeys({ press: 'Enter' });
      await until(() => button.getAttribute('aria-disabled') === 'true', 'sending');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(document.activeElement, form, 'not <body>');
      assert.equal(form.shadowRoot!.activeElement, button);
      await sendKeys({ press: 'Enter' });
      await sendKeys({ press: 'Space' });
      button.click();
      await until(() => $(form, '[part~="success"]'), 'the success view', 10_000);
      const posts = (await requestLog()).filter((l) => l.path === '/cotizaciones');
      assert.equal(posts.length, 1);
    });

    it('retries 5xx and 429 answers, honouring Retry-After', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Mouse');
      const empresa = `Reintentos ${Date.now()}`;
      await fillClient(form, empresa);
      await fault({
        method: 'POST',
        path: '/cotizaciones',
        action: 'respond',
        status: 503,
        body: { error: 'down', code: 'service_unavailable' },
      });
      await fault({
        method: 'POST',
        path: '/cotizaciones',
        action: 'respond',
        status: 429,
        headers: { 'Retry-After': '1' },
        body: { error: 'slow down', code: 'rate_limited' },
      });
      const start = performance.now();
      const submitting = form.submit();
      await until(() => text(form).includes('retrying'), 'retry notice');
      assert.equal(
        $(form, '[part="submit"]')!.getAttribute('aria-disabled'),
        'true',
        'no second submission meanwhile',
      );
      const result = await submitting;
      assert.isAtLeast(performance.now() - start, 1000, 'waited for Retry-After');
      const posts = (await requestLog()).filter((l) => l.path === '/cotizaciones');
      assert.deepEqual(
        posts.map((p) => Math.floor(p.status / 100)),
        [5, 4, 2],
      );
      assert.equal(new Set(posts.map((p) => p.key)).size, 1);
      assert.match(result.folio, /^COT-/);
    });

    it('does not keep a visitor waiting on a Retry-After beyond 30 s: the refusal is shown at once', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Mouse');
      await fillClient(form, `Paciencia ${Date.now()}`);
      await requestLog();
      await fault({
        method: 'POST',
        path: '/cotizaciones',
        action: 'respond',
        status: 429,
        headers: { 'Retry-After': '324' },
        body: { error: 'slow down', code: 'rate_limited' },
      });
      const failure = await form.submit().catch((error: { code: string }) => error);
      assert.equal((failure as { code: string }).code, 'rate_limited');
      const posts = (await requestLog()).filter((l) => l.path === '/cotizaciones');
      assert.equal(posts.length, 1, 'no retry before the server would take one');
    });

    it('retries 409 idempotency_in_progress with the same Idempotency-Key, honouring Retry-After', async () => {
      // What a visitor meets when the process that took the submission died mid-request: its
      // retry finds the reservation still held, and succeeds once the server frees it.
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Mouse');
      const empresa = `En curso ${Date.now()}`;
      // Its own email: a known email would file the quote under that client's name.
      await fillClient(form, empresa, `${Date.now()}@en-curso.example`);
      await requestLog();
      await fault({ method: 'POST', path: '/cotizaciones', action: 'drop-after' });
      await fault({
        method: 'POST',
        path: '/cotizaciones',
        action: 'respond',
        status: 409,
        headers: { 'Retry-After': '2' },
        body: { error: 'still running', code: 'idempotency_in_progress' },
      });
      const start = performance.now();
      const result = await form.submit();
      const elapsed = performance.now() - start;
      const posts = (await requestLog()).filter((l) => l.path === '/cotizaciones');
      assert.deepEqual(
        posts.map((p) => (p.fault === 'drop-after' ? p.fault : p.status)),
        ['drop-after', 409, 200],
      );
      assert.equal(new Set(posts.map((p) => p.key)).size, 1, 'one Idempotency-Key for every attempt');
      assert.isAtLeast(elapsed, 2000, 'waited for Retry-After');
      assert.equal((await quotesOf(empresa)).length, 1, 'exactly one quote');
      assert.match(result.folio, /^COT-/);
    });

    const failures: [string, number, RegExp][] = [
      ['invalid_request', 400, /Please check/],
      ['invalid_json', 400, /went wrong on our side/],
      ['invalid_key', 401, /key is missing or not valid/],
      ['missing_key', 401, /key is missing or not valid/],
      ['insufficient_scope', 403, /not allowed to use/],
      ['origin_not_allowed', 403, /not allowed/],
      ['idempotency_key_reused', 422, /changed while/],
      ['payload_too_large', 413, /too large/],
      ['internal_error', 500, /went wrong/],
      ['service_unavailable', 503, /unavailable/],
      ['fx_unavailable', 503, /unavailable/],
      ['rate_limited', 429, /Too many requests/],
      ['api_quota_exceeded', 429, /Too many requests/],
      ['idempotency_in_progress', 409, /being processed/],
    ];
    for (const [code, status, message] of failures) {
      it(`maps ${code} to a localized message, fires svc-error and rejects submit()`, async () => {
        const form = await mount({ attrs: { locale: 'en' } });
        await pick(form, 'Mouse');
        await fillClient(form, 'Errores SA');
        // 5xx, 429 and "in progress" are retried: answer the same failure to every attempt.
        const retried = status >= 500 || status === 429 || code === 'idempotency_in_progress';
        for (let i = 0; i < (retried ? 4 : 1); i++) {
          await fault({
            method: 'POST',
            path: '/cotizaciones',
            action: 'respond',
            status,
            headers: { 'Retry-After': '1' },
            body: { error: 'detail from the server', code, request_id: 'req_test' },
          });
        }
        const errors: SvcErrorDetail[] = [];
        form.addEventListener('svc-error', (e) => errors.push(e.detail));
        const failure = await form.submit().then(
          () => undefined,
          (e: { code: string }) => e,
        );
        await form.updateComplete;
        assert.equal(failure?.code, code);
        assert.equal(errors[0]?.code, code);
        assert.match(text(form), message);
        assert.notOk($(form, '[part~="success"]'));
        assert.deepEqual(await axeViolations(form), []);
      });
    }

    it('names the coupon reason when the server refuses the coupon on submission', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      await pick(form, 'Mouse');
      await fillClient(form, 'Cupones SA');
      await fault({
        method: 'POST',
        path: '/cotizaciones',
        action: 'respond',
        status: 400,
        body: { error: 'cupon: expired', code: 'invalid_request', reason: 'expired' },
      });
      await form.submit().catch(() => {});
      await form.updateComplete;
      assert.include(text(form), 'That coupon has expired');
    });

    it('says progress in a status region and a failure in an alert region, both there from the start', async () => {
      const form = await mount({ attrs: { locale: 'en' } });
      const regions = () => $$(form, '.actions .notice');
      const [status, alert] = regions();
      assert.deepEqual(
        regions().map((region) => [region.getAttribute('role'), region.textContent]),
        [
          ['status', ''],
          ['alert', ''],
        ],
      );
      // Empty, neither takes room or draws an edge.
      assert.deepEqual(
        regions().map((region) => region.getBoundingClientRect().height),
        [0, 0],
      );
      await pick(form, 'Laptop 14');
      await fillClient(form, `Avisos ${Date.now()}`);
      // A retry said as progress, then the refusal.
      await fault({
        method: 'POST',
        path: '/cotizaciones',
        action: 'respond',
        status: 503,
        headers: { 'Retry-After': '1' },
        body: { error: 'down', code: 'service_unavailable' },
      });
      await fault({
        method: 'POST',
        path: '/cotizaciones',
        action: 'respond',
        status: 400,
        body: { error: 'cliente.email: must be a valid email address', code: 'invalid_request' },
      });
      const submitting = form.submit().catch(() => {});
      await until(() => status!.textContent?.startsWith('No answer yet; retrying in'), 'progress said');
      assert.equal(alert!.textContent, '');
      await submitting;
      await form.updateComplete;
      // The same two elements, their roles unchanged: the failure in the alert, progress gone.
      assert.deepEqual(regions(), [status, alert]);
      assert.equal(status!.getAttribute('role'), 'status');
      assert.equal(status!.textContent, '');
      assert.equal(alert!.getAttribute('role'), 'alert');
      assert.include(alert!.textContent, 'Please check');
      assert.deepEqual(await axeViolations(form), []);
    });

    it('says what went wrong wholly in the form’s language, and gives the focus back to the button', async () => {
      const form = await mount({ attrs: { locale: 'de' } });
      await pick(form, 'Mouse');
      await fillClient(form, 'Sprachen GmbH');
      const errors: CustomEvent<SvcErrorDetail>[] = [];
      form.addEventListener('svc-error', (e) => errors.push(e as CustomEvent<SvcErrorDetail>));
      await fault({
        method: 'POST',
        path: '/cotizaciones',
        action: 'respond',
        status: 400,
        body: {
          error: 'items[0].precio_unitario: must be the catalog price 24500 MXN',
          code: 'invalid_request',
        },
      });
      const button = $<HTMLButtonElement>(form, '[part="submit"]')!;
      button.focus();
      await form.submit().catch(() => {});
      await form.updateComplete;
      assert.notInclude(text(form), 'must be the catalog price');
      assert.include(text(form), 'Bitte prüfen Sie die Angaben');
      assert.notInclude(errors[0]!.detail.error, 'must be');
      await until(() => form.shadowRoot!.activeElement === button, 'focus back on the button');
    });
  });
});
