import { sendKeys, setViewport } from '@web/test-runner-commands';
import { assert } from 'chai';
import { $$, axeViolations, cleanup, mount, picker, shot, text, until } from '../testing/fixture.js';

const input = (form: HTMLElement) => picker(form).querySelector('input')!;
const listbox = (form: HTMLElement) => picker(form).querySelector<HTMLElement>('[role="listbox"]')!;
const options = (form: HTMLElement) => [...picker(form).querySelectorAll<HTMLElement>('[role="option"]')];

describe('<svc-product-picker> inside the form', () => {
  afterEach(async () => {
    cleanup();
    document.body.style.paddingTop = '';
    window.scrollTo(0, 0);
    await setViewport({ width: 1280, height: 800 });
  });

  it('is a combobox driven by the keyboard: type-ahead, arrows, Enter, Escape', async () => {
    const form = await mount({ attrs: { locale: 'en' } });
    input(form).focus();
    await sendKeys({ type: 'lap' });
    await until(() => options(form).length === 2, 'two laptops');
    const box = input(form);
    assert.equal(box.getAttribute('role'), 'combobox');
    assert.equal(box.getAttribute('aria-expanded'), 'true');
    assert.equal(box.getAttribute('aria-controls'), listbox(form).id);
    assert.equal(box.getAttribute('aria-activedescendant'), options(form)[0]!.id);
    await sendKeys({ press: 'ArrowDown' });
    assert.equal(box.getAttribute('aria-activedescendant'), options(form)[1]!.id);
    assert.equal(options(form)[1]!.getAttribute('aria-selected'), 'true');
    await sendKeys({ press: 'ArrowDown' });
    assert.equal(box.getAttribute('aria-activedescendant'), options(form)[0]!.id, 'wraps around');
    await sendKeys({ press: 'ArrowUp' });
    const chosen = options(form)[1]!.textContent!;
    assert.deepEqual(await axeViolations(form), []);
    await sendKeys({ press: 'Enter' });
    await form.updateComplete;
    assert.equal($$(form, '.line').length, 1);
    assert.include(chosen, $$(form, '.line .name')[0]!.textContent!.trim());
    assert.equal(box.getAttribute('aria-expanded'), 'false');
    assert.equal(box.value, '');
    assert.equal(picker(form).activeElement, box, 'focus stays in the search');
    await sendKeys({ type: 'zzzz' });
    await until(
      () => text(form).includes('') && options(form)[0]?.textContent?.includes('No matches'),
      'no matches',
    );
    await sendKeys({ press: 'Escape' });
    assert.equal(box.getAttribute('aria-expanded'), 'false');
    assert.equal(box.value, 'zzzz');
    await sendKeys({ press: 'Escape' });
    await form.updateComplete;
    assert.equal(box.value, '', 'a second Escape clears the search');
    // The option active among the search's matches is not carried to the whole list it leaves.
    await sendKeys({ type: 'lap' });
    await until(() => options(form).length === 2, 'two laptops again');
    await sendKeys({ press: 'ArrowDown' });
    await sendKeys({ press: 'Escape' });
    await sendKeys({ press: 'Escape' });
    await sendKeys({ press: 'ArrowDown' });
    await until(() => box.getAttribute('aria-expanded') === 'true', 'the whole list open');
    assert.isFalse(box.hasAttribute('aria-activedescendant'), 'no option active after clearing');
    await sendKeys({ press: 'Enter' });
    await form.updateComplete;
    assert.equal($$(form, '.line').length, 1, 'Enter adds nothing more');
  });

  it('opens on focus with no option chosen: Enter adds nothing until the person types or moves', async () => {
    const form = await mount({ attrs: { locale: 'de', theme: 'light' } });
    input(form).focus();
    await until(() => options(form).length > 5, 'the whole catalog listed');
    const box = input(form);
    assert.equal(box.getAttribute('aria-expanded'), 'true');
    assert.isFalse(box.hasAttribute('aria-activedescendant'), 'no active option on focus');
    assert.deepEqual(
      options(form).filter((o) => o.getAttribute('aria-selected') === 'true'),
      [],
      'no option selected on focus',
    );
    await sendKeys({ press: 'Enter' });
    await form.updateComplete;
    assert.equal($$(form, '.line').length, 0, 'Enter with nothing chosen adds nothing');
    assert.equal(box.getAttribute('aria-expanded'), 'true', 'the list stays open');
    // Up from none is the last option; down from none the first.
    await sendKeys({ press: 'ArrowUp' });
    assert.equal(box.getAttribute('aria-activedescendant'), options(form).at(-1)!.id);
    // Tabbing away and back in starts again from none.
    box.blur();
    await form.updateComplete;
    box.focus();
    await form.updateComplete;
    assert.isFalse(box.hasAttribute('aria-activedescendant'));
    await sendKeys({ press: 'ArrowDown' });
    assert.equal(box.getAttribute('aria-activedescendant'), options(form)[0]!.id);
    const chosen = options(form)[0]!.textContent!;
    await sendKeys({ press: 'Enter' });
    await form.updateComplete;
    assert.equal($$(form, '.line').length, 1);
    assert.include(chosen, $$(form, '.line .name')[0]!.textContent!.trim());
    // Typed and erased: no match is chosen for the person.
    await sendKeys({ type: 'm' });
    await until(() => box.hasAttribute('aria-activedescendant'), 'the first match active');
    await sendKeys({ press: 'Backspace' });
    await form.updateComplete;
    assert.isFalse(box.hasAttribute('aria-activedescendant'));
    await shot('picker-focus-none-de-light');
  });

  it('hands the focus on with Tab while its long list is open, never to the list itself', async () => {
    const form = await mount({ attrs: { locale: 'en' } });
    input(form).focus();
    await until(() => options(form).length > 5, 'the whole catalog listed');
    await sendKeys({ press: 'Tab' });
    await form.updateComplete;
    // A scrolling list is focusable in Chromium unless told otherwise; Tab used to land on it as it hid.
    const active = form.shadowRoot!.activeElement;
    assert.isNotNull(active);
    assert.notEqual(active, form.shadowRoot!.querySelector('svc-product-picker'));
  });

  it('finds products regardless of accents and case, by name or SKU', async () => {
    const form = await mount();
    input(form).focus();
    await sendKeys({ type: 'CONSULTORIA' });
    await until(() => options(form).length === 1, 'one match');
    assert.include(options(form)[0]!.textContent, 'consultoría');
    input(form).value = '';
    await sendKeys({ type: 'mon-27' });
    await until(() => options(form)[0]?.textContent?.includes('Monitor'), 'by SKU');
  });

  it('positions its list with Floating UI: below the input, flipped above near the bottom, following scroll', async () => {
    await setViewport({ width: 360, height: 640 });
    const form = await mount();
    input(form).focus();
    await until(() => listbox(form).getBoundingClientRect().height > 0, 'list open');
    await new Promise((r) => setTimeout(r, 50));
    let field = input(form).getBoundingClientRect();
    let list = listbox(form).getBoundingClientRect();
    assert.isAtLeast(list.top, field.bottom - 1, 'below the input');
    assert.isAtMost(list.right, 360, 'inside the viewport');
    assert.approximately(list.width, field.width, 1);
    // Near the bottom of the viewport it opens above; scrolled up, below again, following the input.
    input(form).blur();
    document.body.style.paddingTop = '700px';
    document.body.style.paddingBottom = '1500px';
    window.scrollTo(0, 0);
    window.scrollBy(0, input(form).getBoundingClientRect().bottom - 620);
    input(form).focus({ preventScroll: true });
    await until(() => listbox(form).getBoundingClientRect().height > 0, 'list open again');
    await new Promise((r) => setTimeout(r, 50));
    field = input(form).getBoundingClientRect();
    list = listbox(form).getBoundingClientRect();
    assert.isAtLeast(field.bottom, 600);
    assert.isAtMost(list.bottom, field.top + 1, 'flipped above near the bottom');
    window.scrollBy(0, 400);
    await new Promise((r) => setTimeout(r, 100));
    const afterField = input(form).getBoundingClientRect();
    const afterList = listbox(form).getBoundingClientRect();
    assert.approximately(afterField.top, field.top - 400, 2);
    assert.isAtLeast(afterList.top, afterField.bottom - 1, 'below again once there is room');
    assert.deepEqual(await axeViolations(form), []);
    document.body.style.paddingBottom = '';
  });
});
