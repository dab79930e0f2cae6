import { css } from 'lit';

// Public knobs are --svc-*; the --_* names are private shorthands computed from them. Dark values
// appear twice (the `dark` theme, and `auto` under a dark system preference): CSS cannot share a
// rule between an attribute selector and a media query, and brotli makes the repeat nearly free.
export default css`
  :host {
    --_primary: var(--svc-color-primary, var(--svc-brand, #1f7a4d));
    --_on-primary: var(--svc-color-on-primary, var(--svc-brand-on, #fff));
    --_primary-soft: color-mix(in srgb, var(--_primary) 14%, transparent);
    /* The brand's ink (4.5:1 on white, set from the configuration) darkened a little more: it also sits on tints. */
    --_primary-text: var(--svc-color-primary-text, color-mix(in srgb, var(--svc-brand-ink, var(--_primary)) 80%, #000));
    --_text: var(--svc-color-text, #1b1f24);
    --_muted: var(--svc-color-muted, #5b6470);
    --_surface: var(--svc-color-surface, #fff);
    --_field: var(--svc-color-field, #fff);
    --_border: var(--svc-color-border, #c9cfd6);
    --_danger: var(--svc-color-danger, #b42318);
    --_ok: var(--svc-color-success, #17663f);
    --_radius: var(--svc-radius, 10px);
    --_density: var(--svc-density, 1);
    --_space: calc(var(--svc-spacing, 16px) * var(--_density));
    --_gap-s: calc(var(--_space) / 2);
    --_control: max(36px, calc(44px * var(--_density)));
    --_pad: calc(var(--_space) / 2.5) calc(var(--_space) * 0.75);
    display: block;
    font-family: var(--svc-font, inherit);
    line-height: 1.4;
    color: var(--_text);
    color-scheme: light;
    container-type: inline-size;
  }
  :host([theme='dark']) {
    --_text: var(--svc-color-text, #eef1f4);
    --_muted: var(--svc-color-muted, #a9b3be);
    --_surface: var(--svc-color-surface, #161a1f);
    --_field: var(--svc-color-field, #0f1216);
    --_border: var(--svc-color-border, #3e4751);
    --_danger: var(--svc-color-danger, #ff8a80);
    --_ok: var(--svc-color-success, #7ddca5);
    --_primary-soft: color-mix(in srgb, var(--_primary) 30%, transparent);
    --_primary-text: var(--svc-color-primary-text, color-mix(in srgb, var(--_primary) 40%, #fff));
    color-scheme: dark;
  }
  @media (prefers-color-scheme: dark) {
    :host([theme='auto']) {
      --_text: var(--svc-color-text, #eef1f4);
      --_muted: var(--svc-color-muted, #a9b3be);
      --_surface: var(--svc-color-surface, #161a1f);
      --_field: var(--svc-color-field, #0f1216);
      --_border: var(--svc-color-border, #3e4751);
      --_danger: var(--svc-color-danger, #ff8a80);
      --_ok: var(--svc-color-success, #7ddca5);
      --_primary-soft: color-mix(in srgb, var(--_primary) 30%, transparent);
      --_primary-text: var(--svc-color-primary-text, color-mix(in srgb, var(--_primary) 40%, #fff));
      color-scheme: dark;
    }
  }
  * { box-sizing: border-box; }
  .base {
    background: var(--_surface); border: 1px solid var(--_border); border-radius: calc(var(--_radius) + 4px);
    padding: var(--_space); display: grid; gap: var(--_space); min-width: 0;
    /* One column as wide as the card: long words (German) wrap instead of widening it. */
    grid-template-columns: minmax(0, 1fr);
  }
  header { display: flex; align-items: center; gap: var(--_gap-s); border-bottom: 3px solid var(--_primary); padding-bottom: var(--_gap-s); }
  header img { max-height: 36px; max-width: 120px; object-fit: contain; }
  h2 { font-size: 1.2em; margin: 0; }
  h3 { font-size: 1em; margin: 0 0 var(--_gap-s); }
  label { font-weight: 600; }
  /* A field's edge in the muted text's colour: it must read at 3:1 on the field (WCAG 1.4.11). */
  input, textarea {
    font: inherit; color: inherit; background: var(--_field); border: 1px solid var(--_muted);
    border-radius: var(--_radius); padding: var(--_pad); min-height: var(--_control); width: 100%; min-width: 0;
  }
  ::placeholder { color: var(--_muted); opacity: 1; }
  textarea { resize: vertical; }
  /* The success heading gets the focus from the script: its ring shows after a click too. */
  :focus-visible, h2:focus { outline: 2px solid var(--_primary-text); outline-offset: 1px; }
  [aria-invalid='true'] { border-color: var(--_danger); }
  button, .button {
    font: inherit; border-radius: var(--_radius); padding: var(--_pad); min-height: var(--_control); cursor: pointer;
    border: 1px solid var(--_primary-text); background: transparent; color: var(--_primary-text); font-weight: 600;
    display: inline-flex; align-items: center; justify-content: center; text-decoration: none; white-space: nowrap;
  }
  .primary { background: var(--_primary); color: var(--_on-primary); }
  [aria-disabled='true'] { opacity: 0.65; cursor: progress; }
  button.link { border: 0; min-height: 24px; padding: 0; text-decoration: underline; font-weight: 400; }
  .row { display: flex; gap: var(--_gap-s); align-items: end; flex-wrap: wrap; }
  .row > .grow { flex: 1 1 200px; }
  .row.nowrap { flex-wrap: nowrap; align-items: center; }
  .row.nowrap > .grow { flex-basis: 0; }
  .field { display: grid; gap: 6px; min-width: 0; align-content: start; }
  .field.price { flex: 0 1 140px; }
  .error-text { color: var(--_danger); font-size: 0.9em; margin: 0; }
  .ok-text { color: var(--_ok); font-weight: 600; margin: 0; }
  .muted { color: var(--_muted); margin: 0; }
  .small { font-size: 0.9em; }
  .draft { padding: var(--_gap-s) var(--_space) var(--_space); border-radius: var(--_radius); background: var(--_primary-soft); }
  .draft p { margin: 0; }
  .progress {
    flex: 0 1 120px; height: 4px; border-radius: 2px; background: var(--_primary);
    animation: pulse 1s ease-in-out infinite alternate;
  }
  @keyframes pulse { from { opacity: 0.25; } to { opacity: 1; } }
  /* One set of columns for all lines (subgrid): quantities and amounts line up, the amounts with the totals. */
  .lines {
    display: grid; grid-template-columns: minmax(0, 1fr) 96px auto; column-gap: var(--_gap-s);
    margin: 0; padding: 0; list-style: none;
  }
  .line {
    grid-column: 1 / -1; display: grid; grid-template-columns: subgrid; row-gap: 4px;
    align-items: center; padding: var(--_gap-s) 0; border-bottom: 1px solid var(--_border);
  }
  .line .error-text { grid-column: 1 / -1; }
  .line .name { font-weight: 600; overflow-wrap: anywhere; }
  .line .amount { text-align: end; white-space: nowrap; font-variant-numeric: tabular-nums; }
  .line input { min-height: 40px; text-align: end; }
  .line.new { animation: appear 0.6s ease-out; }
  @keyframes appear { from { background: var(--_primary-soft); } }
  /* Each label and its amount on one row; where both do not fit (a long label, a large amount, a
     narrow card) the amount goes under, to the right: labels wrap at spaces only, never mid-word. */
  .totals { display: grid; gap: 4px; margin: 0; font-variant-numeric: tabular-nums; }
  .totals div { display: flex; flex-wrap: wrap; column-gap: var(--_gap-s); }
  #svc-totals-error:not(:empty) { margin-top: var(--_gap-s); }
  .totals dt { color: var(--_muted); }
  .totals dd { margin: 0 0 0 auto; white-space: nowrap; }
  .totals .grand { font-weight: 700; font-size: 1.2em; border-top: 1px solid var(--_border); padding-top: 6px; }
  .grand dt { color: var(--_text); }
  .notice { padding: var(--_gap-s) var(--_space); border-radius: var(--_radius); background: var(--_primary-soft); }
  .notice.error { background: color-mix(in srgb, var(--_danger) 14%, transparent); border: 1px solid var(--_danger); }
  /* Live regions stay in the accessibility tree when empty, or their first message is not announced.
     The notice is two (status and alert): a region whose role changes with its text is not
     announced by every screen reader. */
  /* After .notice.error, which it overrides. */
  .notice:empty { padding: 0; border: 0; }
  .actions { display: grid; gap: var(--_gap-s); }
  .submit { width: 100%; font-size: 1.05em; }
  .skeleton { display: grid; gap: var(--_space); }
  .skeleton span {
    display: block; height: var(--_control); border-radius: var(--_radius);
    background: linear-gradient(90deg, var(--_border) 25%, var(--_primary-soft) 50%, var(--_border) 75%);
    background-size: 200% 100%; animation: shimmer 1.2s infinite linear; opacity: 0.6;
  }
  @keyframes shimmer { to { background-position: -200% 0; } }
  .skeleton .short { width: 40%; }
  .skeleton .tall { height: 120px; }
  .skeleton .end { justify-self: end; }
  fieldset.plain { border: 0; padding: 0; margin: 0; min-width: 0; }
  legend { padding: 0; }
  .grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: var(--_gap-s) var(--_space); }
  details { margin-top: var(--_gap-s); }
  details .grid2, .custom .row { margin-top: var(--_gap-s); }
  summary { cursor: pointer; color: var(--_primary-text); font-weight: 600; min-height: 24px; }
  .success { text-align: center; justify-items: center; padding: calc(var(--_space) * 2) var(--_space); }
  .success p { margin: 0; }
  .check {
    width: 56px; height: 56px; border-radius: 50%; background: var(--_primary); color: var(--_on-primary);
    display: grid; place-items: center; font-size: 28px; font-weight: 700;
  }
  [part~='error'] { border-color: var(--_danger); }
  [part~='error'] p { margin: 0; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  @media (prefers-reduced-motion: reduce) {
    .line.new, .skeleton span, .progress { animation: none; }
  }
  @container (max-width: 520px) {
    .grid2 { grid-template-columns: 1fr; }
    .lines { grid-template-columns: minmax(0, 1fr) 88px auto; }
    /* Narrow: the name, its price and remove button, then the quantity beside the amount. */
    .line .what { grid-column: 1 / -1; }
    .line .qty { grid-column: 2; }
    .totals .grand { font-size: 1.05em; }
  }
`;
