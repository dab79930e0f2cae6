// A merchant's single-page app using the npm package: register the tags, create the form,
// prefill it, and show what it reports.
import '@svc/elements/define';
import type { SvcQuoteForm } from '@svc/elements';

const key = document.querySelector<HTMLMetaElement>('meta[name="svc-publishable-key"]')?.content ?? '';
const form = document.createElement('svc-quote-form') as SvcQuoteForm;
form.setAttribute('publishable-key', key);
form.setAttribute('locale', 'en');
form.cliente = { empresa: 'Acme Corp', email: 'buyer@acme.example' };
document.getElementById('app')!.append(form);

const log = document.getElementById('events')!;
for (const name of ['svc-ready', 'svc-change', 'svc-draft-item', 'svc-quote-created', 'svc-error'] as const) {
  form.addEventListener(name, (event) => {
    const item = document.createElement('li');
    item.textContent = `${new Date().toLocaleTimeString()} ${name} ${JSON.stringify((event as CustomEvent).detail)}`;
    item.dataset.event = name;
    log.prepend(item);
  });
}

const locale = document.getElementById('locale') as HTMLSelectElement;
const theme = document.getElementById('theme') as HTMLSelectElement;
locale.addEventListener('change', () => form.setAttribute('locale', locale.value));
theme.addEventListener('change', () => {
  form.setAttribute('theme', theme.value);
  document.body.classList.toggle('dark', theme.value === 'dark');
});
