// `npm run eval:drafter`: scores the catalog drafter on the development set (and our extra set)
// by precision, recall and F1 over (sku, cantidad) pairs, and times the first drafted item.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createCatalogDrafter } from './catalog-drafter.js';
import type { CatalogProduct } from './types.js';

interface Case {
  text: string;
  expected: { sku: string; cantidad: number }[];
}

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    set: { type: 'string', default: 'dev' },
    'min-f1': { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
});

/** The demo catalog as the drafter sees it. */
export function demoCatalog(): CatalogProduct[] {
  const catalog = JSON.parse(readFileSync(join(here, '../../../../demo/catalog.json'), 'utf8')) as {
    org: { currency: string };
    products: {
      sku: string;
      nombre: string;
      unidad: string;
      precio_lista: number;
      tax_rate: number;
      aliases: string[];
    }[];
  };
  return catalog.products.map((p) => ({ id: p.sku, moneda: catalog.org.currency, ...p }));
}

/** Scores `cases`; returns precision, recall, F1 and first-item times. */
export async function evaluate(cases: Case[], catalog = demoCatalog()) {
  const drafter = createCatalogDrafter();
  let truePositives = 0;
  let proposed = 0;
  let expected = 0;
  const times: number[] = [];
  const misses: string[] = [];
  for (const c of cases) {
    const start = performance.now();
    const got: { sku: string; cantidad: number }[] = [];
    for await (const item of drafter.draft({ prompt: c.text, catalog })) {
      if (got.length === 0) times.push(performance.now() - start);
      got.push({ sku: item.sku, cantidad: item.cantidad });
    }
    if (got.length === 0) times.push(performance.now() - start);
    const key = (x: { sku: string; cantidad: number }) => `${x.sku}×${x.cantidad}`;
    const want = new Set(c.expected.map(key));
    const hits = got.filter((x) => want.has(key(x))).length;
    truePositives += hits;
    proposed += got.length;
    expected += c.expected.length;
    if (hits !== got.length || hits !== c.expected.length) {
      misses.push(
        `  "${c.text}"\n     expected ${c.expected.map(key).join(', ') || '(nothing)'}\n     got      ${got.map(key).join(', ') || '(nothing)'}`,
      );
    }
  }
  const precision = proposed === 0 ? 1 : truePositives / proposed;
  const recall = expected === 0 ? 1 : truePositives / expected;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0;
  return { precision, recall, f1, cases: cases.length, misses, p50: pct(0.5), p95: pct(0.95) };
}

function load(name: string): Case[] {
  return (
    JSON.parse(readFileSync(join(here, 'fixtures', `ai-draft-${name}.json`), 'utf8')) as { cases: Case[] }
  ).cases;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sets = values.set === 'all' ? ['dev', 'extra'] : [values.set!];
  const result = await evaluate(sets.flatMap(load));
  if (!values.quiet && result.misses.length > 0) console.log(`Misses:\n${result.misses.join('\n')}\n`);
  const f = (x: number) => x.toFixed(2);
  console.log(
    `F1 ${f(result.f1)} (precision ${f(result.precision)}, recall ${f(result.recall)}) on ${result.cases} cases; first item p50 ${result.p50.toFixed(2)} ms, p95 ${result.p95.toFixed(2)} ms`,
  );
  const min = values['min-f1'] ? Number(values['min-f1']) : undefined;
  if (min !== undefined && result.f1 < min) {
    console.error(`F1 ${f(result.f1)} is below the floor ${min}`);
    process.exit(1);
  }
}
