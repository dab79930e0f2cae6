// The script-tag build (dist/svc-elements.js): `<script src="https://…/elements/svc-elements.js" async>`.
// It does what define.ts does, after one step the npm build has no use for: the API lives next to
// the script by default, so the snippet needs nothing but the publishable key. That step comes
// first because elements already in the page connect, and load their configuration, the moment
// the tag is defined.
import { setDefaultApiBase } from './quote-form/quote-form.component.js';
import { defineQuoteForm } from './quote-form/quote-form.js';

// currentScript is set for classic scripts, async and defer included; as a module it is null.
const script = (document.currentScript ??
  document.querySelector('script[src*="svc-elements"]')) as HTMLScriptElement | null;
if (script?.src) setDefaultApiBase(`${new URL(script.src, location.href).origin}/api/v1`);
defineQuoteForm();
