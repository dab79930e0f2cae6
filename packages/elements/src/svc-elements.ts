// The script-tag build: `<script src="https://…/elements/svc-elements.js" async>`. The API lives
// next to the script by default, so the snippet needs nothing but the publishable key.
import { setDefaultApiBase } from './quote-form/quote-form.component.js';
import { defineQuoteForm } from './quote-form/quote-form.js';

const script = document.currentScript as HTMLScriptElement | null;
if (script?.src) setDefaultApiBase(`${new URL(script.src).origin}/api/v1`);
defineQuoteForm();
