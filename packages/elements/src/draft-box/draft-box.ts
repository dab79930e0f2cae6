import { html, nothing, type TemplateResult } from 'lit';
import type { Text, View } from '../internal/view.js';

/** Where a drafting request stands. */
export interface DraftState {
  running: boolean;
  /** Lines received so far. */
  count: number;
  /** What to tell the person (progress, outcome or failure). */
  message: Text;
  error: boolean;
  /** What the service read as asked for but could not draft ("impresora"), from `done.skipped`. */
  skipped?: string[];
}

export const idleDraft: DraftState = { running: false, count: 0, message: () => '', error: false };

/** "no encontré: impresora, silla": under the drafted lines, what the last draft skipped. */
export function skippedLine(view: View, state: DraftState): TemplateResult | typeof nothing {
  return state.skipped?.length
    ? html`<p part="skipped" class="muted small">${view.t.notFound} ${state.skipped.join(', ')}</p>`
    : nothing;
}

/**
 * "Describe what you need": a text box whose request streams drafted lines into the basket. One
 * button starts and stops (it keeps focus across both, so Enter and Escape stay where the person
 * is); a visible bar and counter show progress while lines arrive.
 */
export function draftBox(
  view: View,
  state: DraftState,
  act: { start(text: string): void; stop(): void },
): TemplateResult {
  const { t } = view;
  return html`<div part="draft" class="field draft" aria-busy=${!!state.running}
    @keydown=${(e: KeyboardEvent) => {
      if (e.key === 'Escape' && state.running) {
        e.preventDefault();
        act.stop();
      } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !state.running) {
        act.start((e.target as HTMLTextAreaElement).value ?? '');
      }
    }}>
    <label for="svc-draft">${t.draftLabel}</label>
    <textarea id="svc-draft" maxlength="2000" rows="2" placeholder=${t.draftPlaceholder} ?readonly=${state.running}></textarea>
    <div class="row nowrap">
      <button type="button" class=${state.running ? 'stop' : ''} @click=${(e: Event) => {
        if (state.running) act.stop();
        else act.start((e.target as HTMLElement).closest('[part="draft"]')!.querySelector('textarea')!.value);
      }}>${state.running ? t.stop : t.draftButton}</button>
      ${state.running ? html`<span class="progress" aria-hidden="true"></span>` : nothing}
    </div>
    <p id="svc-draft-status" class=${state.error ? 'error-text' : 'muted'} role="status">${state.message(view)}</p>
  </div>`;
}
