// Importing the package during server-side rendering must not touch window or document: Node has
// neither, so a top-level access would throw here. (Lit resolves to its Node build, with its DOM
// shim, through the "node" export condition.)
const index = await import('../dist/index.js');
for (const name of ['SvcQuoteForm', 'SvcProductPicker', 'SvcApiError', 'defineQuoteForm', 'LOCALES']) {
  if (!(name in index)) throw new Error(`dist/index.js does not export ${name}`);
}
if (typeof globalThis.window !== 'undefined' || typeof globalThis.document !== 'undefined') {
  throw new Error('importing @svc/elements created window or document globals');
}
console.log('SSR import check: dist/index.js imports in Node without window or document');
