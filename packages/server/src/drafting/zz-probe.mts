import { readFileSync } from 'node:fs';
import { draftRequest } from './catalog-drafter.js';
import { demoCatalog } from './eval.js';

const c = demoCatalog();
const lines = readFileSync(process.argv[2]!, 'utf8').split('\n').filter(Boolean);
let bad = 0;
for (const line of lines) {
  const [p, want = ''] = line.split(' => ');
  const r = draftRequest(p!, c);
  const got = r.items.map((i) => `${i.sku}×${i.cantidad}`).join(' ');
  const ok = got === want.trim();
  if (!ok) bad++;
  console.log(
    ok ? 'ok ' : 'BAD',
    p,
    '=>',
    got,
    ok ? '' : `(want ${want})`,
    '| skipped',
    r.skipped.map((s) => `${s.text}:${s.reason}`).join('; '),
  );
}
console.log('bad', bad, 'of', lines.length);
