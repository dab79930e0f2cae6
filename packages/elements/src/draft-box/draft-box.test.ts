import { sendKeys } from '@web/test-runner-commands';
import { assert } from 'chai';
import type { SvcDraftItemDetail } from '../events/svc-draft-item.js';
import type { SvcErrorDetail } from '../events/svc-error.js';
import { $, $$, axeViolations, cleanup, clearFaults, fault, mount, shot, until } from '../testing/fixture.js';

const PROMPT = 'Necesito 3 laptops, 2 monitores y 10 horas de instalación';
const status = (form: HTMLElement) => $(form, '#svc-draft-status')?.textContent ?? '';
const button = (form: HTMLElement) => $<HTMLButtonElement>(form, '[part="draft"] button')!;

describe('drafting from plain words', () => {
  afterEach(async () => {
    cleanup();
    await clearFaults();
  });

  it('streams lines into the basket one by one, with progress and announcements', async () => {
    const form = await mount();
    await fault({ method: 'POST', path: '/elements/ai-draft', action: 'stream', delayMs: 250 });
    const arrivals: { at: number; item: SvcDraftItemDetail; lines: number }[] = [];
    form.addEventListener('svc-draft-item', (e) =>
      arrivals.push({ at: performance.now(), item: e.detail, lines: form.lines.length }),
    );
    $<HTMLTextAreaElement>(form, '#svc-draft')!.value = PROMPT;
    button(form).click();
    await form.updateComplete;
    assert.equal(button(form).textContent!.trim(), 'Detener');
    assert.equal($(form, '[part="draft"]')!.getAttribute('aria-busy'), 'true');
    assert.ok($(form, '.progress'), 'a visible progress bar');
    await until(() => arrivals.length === 1, 'first line');
    await form.updateComplete;
    assert.include(status(form), '1 línea');
    assert.equal($$(form, '.line').length, 1, 'the first line is in before the others arrive');
    assert.deepEqual(await axeViolations(form), []);
    await until(() => status(form).includes('Listo'), 'done');
    assert.deepEqual(
      arrivals.map((a) => [a.item.sku, a.item.cantidad, a.lines]),
      [
        ['LAP-14', 3, 1],
        ['MON-27', 2, 2],
        ['INST-HORA', 10, 3],
      ],
    );
    assert.isAbove(arrivals[2]!.at - arrivals[0]!.at, 300, 'they arrived over time');
    const log = $(form, '[role="log"]')!.textContent!;
    assert.include(log, 'Agregado: 3 × Laptop');
    assert.include(log, 'Agregado: 10 × Hora de instalación');
    assert.equal(button(form).textContent!.trim(), 'Armar cotización');
    assert.deepEqual(await axeViolations(form), []);
  });

  it('stops with the Stop button and keeps the lines received', async () => {
    const form = await mount();
    await fault({ method: 'POST', path: '/elements/ai-draft', action: 'stream', delayMs: 600 });
    const drafting = form.draft(PROMPT);
    assert.equal($<HTMLTextAreaElement>(form, '#svc-draft')!.value, PROMPT, 'draft() fills the box');
    await until(() => form.lines.length === 1, 'first line');
    button(form).click();
    assert.equal(await drafting, 1);
    await form.updateComplete;
    assert.include(status(form), 'Detenido; conservamos 1 línea');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(form.lines.length, 1, 'nothing more arrives after Stop');
  });

  it('stops with Escape', async () => {
    const form = await mount({ attrs: { locale: 'en' } });
    await fault({ method: 'POST', path: '/elements/ai-draft', action: 'stream', delayMs: 600 });
    const box = $<HTMLTextAreaElement>(form, '#svc-draft')!;
    box.focus();
    await sendKeys({ type: '2 monitores y 1 laptop' });
    button(form).focus();
    await sendKeys({ press: 'Enter' });
    await until(() => form.lines.length === 1, 'first line');
    assert.equal(form.shadowRoot!.activeElement, button(form), 'focus stays on the Start/Stop button');
    await sendKeys({ press: 'Escape' });
    await until(() => status(form).includes('Stopped'), 'stopped');
    assert.equal(form.lines.length, 1);
  });

  it('keeps the lines received when the stream fails midway, and says what happened', async () => {
    const form = await mount();
    const errors: SvcErrorDetail[] = [];
    form.addEventListener('svc-error', (e) => errors.push(e.detail));
    await fault({ method: 'POST', path: '/elements/ai-draft', action: 'stream', delayMs: 100, cutAfter: 2 });
    const count = await form.draft(PROMPT);
    await form.updateComplete;
    assert.equal(count, 2);
    assert.equal(form.lines.length, 2);
    assert.include(status(form), 'Se interrumpió el armado; conservamos 2 líneas.');
    assert.include(status(form), 'No pudimos conectar');
    assert.ok($(form, '#svc-draft-status.error-text'));
    assert.equal(errors[0]?.code, 'network');
    assert.deepEqual(await axeViolations(form), []);
  });

  it('says so when the service refuses before streaming', async () => {
    const form = await mount({ attrs: { locale: 'pt' } });
    await fault({
      method: 'POST',
      path: '/elements/ai-draft',
      action: 'respond',
      status: 429,
      headers: { 'Retry-After': '30' },
      body: { error: 'Too many drafts', code: 'rate_limited' },
    });
    assert.equal(await form.draft('3 laptops'), 0);
    await form.updateComplete;
    assert.include(status(form), 'Muitas solicitações');
  });

  it('says under the drafted lines what it did not find, in the language of the form', async () => {
    const form = await mount();
    assert.equal(await form.draft('2 monitores y una impresora'), 1);
    await form.updateComplete;
    const skipped = $(form, '[part="skipped"]');
    assert.equal(skipped?.textContent?.trim(), 'no encontré: impresora');
    assert.ok(
      $$(form, '.line').at(-1)!.compareDocumentPosition(skipped!) & Node.DOCUMENT_POSITION_FOLLOWING,
      'under the lines',
    );
    assert.include($(form, '[role="log"]')!.textContent!, 'no encontré: impresora');
    assert.deepEqual(await axeViolations(form), []);
    await shot('draft-skipped');
    // A draft that skips nothing clears it.
    await form.draft('un teclado');
    await form.updateComplete;
    assert.isNull($(form, '[part="skipped"]'));
    cleanup();
    const english = await mount({ attrs: { locale: 'en' } });
    await english.draft('two laptops, a printer and three sofas');
    await english.updateComplete;
    assert.equal($(english, '[part="skipped"]')?.textContent?.trim(), 'not found: printer, three sofas');
  });

  it('says so when nothing in the catalog matches', async () => {
    const form = await mount({ attrs: { locale: 'fr' } });
    assert.equal(await form.draft('un éléphant rose'), 0);
    await form.updateComplete;
    assert.include(status(form), 'Rien dans le catalogue');
  });
});
