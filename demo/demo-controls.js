// Live locale and theme switchers of the demo page (an external file: the page's CSP allows no inline script).
const form = document.querySelector('svc-quote-form');
const locale = document.getElementById('locale');
const theme = document.getElementById('theme');
// "auto" follows the system, as the widget's theme="auto" does: the page turns dark with it.
const systemDark = matchMedia('(prefers-color-scheme: dark)');
const paint = () =>
  document.body.classList.toggle(
    'dark',
    theme?.value === 'dark' || (theme?.value === 'auto' && systemDark.matches),
  );
locale?.addEventListener('change', () => {
  if (locale.value) form.setAttribute('locale', locale.value);
  else form.removeAttribute('locale');
});
theme?.addEventListener('change', () => {
  form.setAttribute('theme', theme.value);
  paint();
});
systemDark.addEventListener('change', paint);
