// Helpers of the browser tests: the real service's address and keys, mounting the form, waiting,
// the fault proxy, axe-core and screenshots. Not part of the package.
import { executeServerCommand, sendKeys } from '@web/test-runner-commands';
import '../define.js';
import type { SvcQuoteForm } from '../quote-form/quote-form.component.js';

/** What the test runner's service plugin gives the tests. */
export interface TestService {
  apiBase: string;
  directApiBase: string;
  unreachableApiBase: string;
  key: string;
  liveKey: string;
  foreignKey: string;
  products: { id: string; sku: string }[];
  coupons: string[];
}

let service: Promise<TestService> | undefined;
export const testService = (): Promise<TestService> => {
  service ??= fetch('/__svc_test_config').then((r) => r.json() as Promise<TestService>);
  return service;
};

let fresh = 0;
/** The test service's API base at a URL the browser has not cached (to see a slow first load). */
export const freshApiBase = async (): Promise<string> =>
  (await testService()).apiBase.replace('/api/v1', `/__${Date.now()}${++fresh}/api/v1`);

/** Polls `check` until it returns something truthy, or fails after `timeout` ms. */
export async function until<T>(check: () => T, what = 'condition', timeout = 8000): Promise<NonNullable<T>> {
  const end = performance.now() + timeout;
  for (;;) {
    const value = check();
    if (value) return value as NonNullable<T>;
    if (performance.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Mounts `<svc-quote-form>` against the test service and, unless told not to, waits for svc-ready. */
export async function mount(
  options: {
    attrs?: Record<string, string>;
    props?: Partial<Pick<SvcQuoteForm, 'cliente' | 'items'>>;
    wait?: 'ready' | 'error' | 'none';
    width?: string;
  } = {},
): Promise<SvcQuoteForm> {
  const svc = await testService();
  const form = document.createElement('svc-quote-form');
  form.setAttribute('api-base', svc.apiBase);
  form.setAttribute('publishable-key', svc.key);
  form.setAttribute('locale', 'es');
  for (const [name, value] of Object.entries(options.attrs ?? {})) form.setAttribute(name, value);
  Object.assign(form, options.props ?? {});
  if (options.width) form.style.maxWidth = options.width;
  const wait = options.wait ?? 'ready';
  const settled =
    wait === 'none'
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no ${wait} event`)), 10_000);
          form.addEventListener(wait === 'ready' ? 'svc-ready' : 'svc-error', () => {
            clearTimeout(timer);
            resolve();
          });
        });
  document.body.append(form);
  await settled;
  await form.updateComplete;
  return form;
}

/** Removes every form the tests mounted. */
export function cleanup(): void {
  for (const form of document.querySelectorAll('svc-quote-form')) form.remove();
}

export const root = (form: HTMLElement): ShadowRoot => form.shadowRoot!;
export const $ = <E extends Element = HTMLElement>(form: HTMLElement, selector: string): E | null =>
  form.shadowRoot!.querySelector<E>(selector);
export const $$ = <E extends Element = HTMLElement>(form: HTMLElement, selector: string): E[] => [
  ...form.shadowRoot!.querySelectorAll<E>(selector),
];
export const text = (form: HTMLElement): string => (form.shadowRoot!.textContent ?? '').replace(/\s+/g, ' ');

/** The picker's own shadow root (its input and listbox live there). */
export const picker = (form: HTMLElement): ShadowRoot =>
  form.shadowRoot!.querySelector('svc-product-picker')!.shadowRoot!;

/** Types into an input the way a person does: value, then the input event. */
export function type(input: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  input.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
}

/**
 * Types `value` over what `input` holds, key by key as a person does (each key its own `input`
 * event), then presses Enter unless `enter` is false, and waits for the form to render.
 */
export async function retype(
  form: SvcQuoteForm,
  input: HTMLInputElement,
  value: string,
  enter = true,
): Promise<void> {
  input.focus();
  input.select();
  await sendKeys({ type: value });
  if (enter) await sendKeys({ press: 'Enter' });
  await form.updateComplete;
}

/** Adds a catalog product through the picker, by a word of its name. */
export async function pick(form: SvcQuoteForm, query: string): Promise<void> {
  const input = picker(form).querySelector('input')!;
  input.focus();
  type(input, query);
  await form.updateComplete;
  const option = await until(() => picker(form).querySelector<HTMLElement>('[role="option"]'), 'an option');
  option.click();
  await form.updateComplete;
}

/** Fault proxy controls (scripts/test-server.mjs). */
export interface Fault {
  method: 'GET' | 'POST';
  path: string;
  action: 'drop-after' | 'drop-before' | 'respond' | 'stream' | 'delay';
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
  cutAfter?: number;
}
export const fault = (f: Fault) => executeServerCommand('svc-fault', f);
export const clearFaults = () => executeServerCommand('svc-clear-faults');
export interface LogEntry {
  method: string;
  path: string;
  key: string | null;
  status: number;
  fault: string | null;
}
export const requestLog = async (): Promise<LogEntry[]> =>
  (await executeServerCommand<LogEntry[], undefined>('svc-log')) ?? [];
export const quotesOf = async (empresa: string): Promise<{ id: string; folio: string; total: number }[]> =>
  (await executeServerCommand<{ id: string; folio: string; total: number }[], { empresa: string }>(
    'svc-quotes',
    {
      empresa,
    },
  )) ?? [];
export const shot = (name: string, selector?: string) =>
  executeServerCommand<{ path: string; width: number; height: number }, { name: string; selector?: string }>(
    'svc-shot',
    { name, ...(selector ? { selector } : {}) },
  );

interface AxeResult {
  violations: { id: string; help: string; nodes: { html: string }[] }[];
}
let axeLoaded: Promise<void> | undefined;
/** axe-core's violations inside `element` (its shadow trees included), as readable strings. */
export async function axeViolations(element: Element): Promise<string[]> {
  axeLoaded ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = '/node_modules/axe-core/axe.min.js';
    script.onload = () => resolve();
    script.onerror = reject;
    document.head.append(script);
  });
  await axeLoaded;
  const axe = (window as unknown as { axe: { run(c: unknown, o: unknown): Promise<AxeResult> } }).axe;
  const result = await axe.run(element, { resultTypes: ['violations'] });
  return result.violations.map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => n.html).join(' | ')}`);
}
