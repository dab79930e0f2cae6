import { css } from 'lit';

export default css`
  :host {
    --_primary: var(--svc-color-primary, var(--svc-brand, #1f7a4d));
    --_on-primary: var(--svc-color-on-primary, #fff);
    --_primary-soft: color-mix(in srgb, var(--_primary) 14%, transparent);
    /* Text in the brand colour, a shade darker so it reads on tinted backgrounds too. */
    --_primary-text: var(--svc-color-primary-text, color-mix(in srgb, var(--_primary) 80%, #000));
    --_text: var(--svc-color-text, #1b1f24);
    --_muted: var(--svc-color-muted, #5b6470);
    --_surface: var(--svc-color-surface, #fff);
    --_field: var(--svc-color-field, #fff);
    --_border: var(--svc-color-border, #d0d5dc);
    --_danger: var(--svc-color-danger, #b42318);
    --_ok: var(--svc-color-success, #1f7a4d);
    --_radius: var(--svc-radius, 10px);
    --_space: calc(var(--svc-spacing, 16px) * var(--svc-density, 1));
    --_gap-s: calc(var(--_space) / 3);
    --_pad: calc(var(--_space) / 2) calc(var(--_space) * 0.75);
    display: block;
    font-family: var(--svc-font, inherit);
    color: var(--_text);
    container-type: inline-size;
  }
  :host([theme='dark']) {
    --_text: var(--svc-color-text, #eef1f4);
    --_muted: var(--svc-color-muted, #a6b0bb);
    --_surface: var(--svc-color-surface, #161a1f);
    --_field: var(--svc-color-field, #0f1216);
    --_border: var(--svc-color-border, #39414b);
    --_danger: var(--svc-color-danger, #ff8a80);
    --_primary-soft: color-mix(in srgb, var(--_primary) 30%, transparent);
    --_primary-text: var(--svc-color-primary-text, color-mix(in srgb, var(--_primary) 45%, #fff));
  }
  @media (prefers-color-scheme: dark) {
    :host([theme='auto']) {
      --_text: var(--svc-color-text, #eef1f4);
      --_muted: var(--svc-color-muted, #a6b0bb);
      --_surface: var(--svc-color-surface, #161a1f);
      --_field: var(--svc-color-field, #0f1216);
      --_border: var(--svc-color-border, #39414b);
      --_danger: var(--svc-color-danger, #ff8a80);
      --_primary-soft: color-mix(in srgb, var(--_primary) 30%, transparent);
      --_primary-text: var(--svc-color-primary-text, color-mix(in srgb, var(--_primary) 45%, #fff));
    }
  }
  * { box-sizing: border-box; }
  [hidden] { display: none !important; }
  .base {
    background: var(--_surface); border: 1px solid var(--_border); border-radius: calc(var(--_radius) + 4px);
    padding: var(--_space); display: grid; gap: var(--_space);
  }
  header { display: flex; align-items: center; gap: var(--_gap-s); }
  header img { max-height: 36px; max-width: 120px; object-fit: contain; }
  header h2 { font-size: 1.15em; margin: 0; }
  h3 { font-size: 1em; margin: 0 0 var(--_gap-s); }
  label { font-weight: 600; }
  input, textarea, select {
    font: inherit; color: inherit; background: var(--_field); border: 1px solid var(--_border);
    border-radius: var(--_radius); padding: var(--_pad); min-height: 44px; width: 100%;
  }
  textarea { min-height: 72px; resize: vertical; }
  input:focus-visible, textarea:focus-visible, button:focus-visible, select:focus-visible, summary:focus-visible {
    outline: 2px solid var(--_primary); outline-offset: 1px;
  }
  input[aria-invalid='true'] { border-color: var(--_danger); }
  button {
    font: inherit; border-radius: var(--_radius); padding: var(--_pad); min-height: 44px; cursor: pointer;
    border: 1px solid var(--_primary); background: transparent; color: var(--_primary-text); font-weight: 600;
  }
  button.primary { background: var(--_primary); color: var(--_on-primary); }
  button:disabled { opacity: 0.6; cursor: not-allowed; }
  button.link { border: 0; min-height: 0; padding: 4px; text-decoration: underline; font-weight: 400; }
  .row { display: flex; gap: var(--_gap-s); align-items: end; flex-wrap: wrap; }
  .row > .grow { flex: 1 1 200px; }
  .row.nowrap { flex-wrap: nowrap; }
  .row.nowrap > .grow { flex-basis: 0; min-width: 0; }
  .field { display: grid; gap: 4px; }
  .error-text { color: var(--_danger); font-size: 0.9em; }
  .muted { color: var(--_muted); }
  .lines { display: grid; gap: var(--_gap-s); margin: 0; padding: 0; list-style: none; }
  .line {
    display: grid; grid-template-columns: 1fr 88px 120px auto; gap: var(--_gap-s); align-items: center;
    padding-bottom: var(--_gap-s); border-bottom: 1px solid var(--_border);
  }
  .line .name { font-weight: 600; }
  .line .price { color: var(--_muted); font-size: 0.9em; }
  .line .amount { text-align: end; white-space: nowrap; font-variant-numeric: tabular-nums; }
  .line input { min-height: 40px; text-align: end; }
  .line.new { animation: appear 0.35s ease-out; }
  @keyframes appear { from { background: var(--_primary-soft); } to { background: transparent; } }
  @media (prefers-reduced-motion: reduce) { .line.new { animation: none; } }
  .totals { display: grid; grid-template-columns: 1fr auto; gap: 4px var(--_space); font-variant-numeric: tabular-nums; margin: 0; }
  .totals dt { color: var(--_muted); }
  .totals dd { margin: 0; text-align: end; }
  .totals .grand { font-weight: 700; font-size: 1.2em; color: var(--_text); }
  .status { padding: var(--_gap-s) var(--_space); border-radius: var(--_radius); background: var(--_primary-soft); }
  .status.error { background: color-mix(in srgb, var(--_danger) 14%, transparent); color: var(--_text); }
  .skeleton { display: grid; gap: var(--_space); }
  .skeleton span {
    display: block; height: 44px; border-radius: var(--_radius);
    background: linear-gradient(90deg, var(--_border) 25%, var(--_primary-soft) 50%, var(--_border) 75%);
    background-size: 200% 100%; animation: shimmer 1.2s infinite linear; opacity: 0.6;
  }
  @keyframes shimmer { to { background-position: -200% 0; } }
  @media (prefers-reduced-motion: reduce) { .skeleton span { animation: none; } }
  .skeleton .short { width: 40%; }
  .skeleton .tall { height: 120px; }
  fieldset.plain { border: 0; padding: 0; margin: 0; min-width: 0; }
  legend { padding: 0; }
  .grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: var(--_gap-s) var(--_space); }
  .success { text-align: center; display: grid; gap: var(--_space); justify-items: center; }
  .success a { color: var(--_primary-text); font-weight: 600; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  details summary { cursor: pointer; color: var(--_primary-text); min-height: 24px; }
  @container (max-width: 520px) {
    .skeleton .short { width: 40%; }
  .skeleton .tall { height: 120px; }
  fieldset.plain { border: 0; padding: 0; margin: 0; min-width: 0; }
  legend { padding: 0; }
  .grid2 { grid-template-columns: 1fr; }
    .line { grid-template-columns: 1fr auto; }
    .line .qty { grid-column: 1; max-width: 110px; }
    .line .amount { grid-column: 2; grid-row: 1; }
  }
`;
