// `npm run eval:drafter`: scores the catalog drafter on the development set (or our extra set)
// by precision, recall and F1 over (sku, cantidad) pairs, and times the first drafted item.
//
//   npm run eval:drafter                       the shared development set
//   npm run eval:drafter -- --set extra        our held-out-style set (--set all: both)
//   npm run eval:drafter -- --set kinds        the cases by kind of issue 21 (--set all: every set)
//   npm run eval:drafter -- --min-f1 0.9       exits 1 below the floor
//   npm run eval:drafter -- --min-kind-f1 0.9  exits 1 when any kind is below the floor
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createCatalogDrafter } from './catalog-drafter.js';
import type { CatalogProduct, SkippedPhrase } from './types.js';

/** One sentence and the lines a good drafter proposes for it. */
export interface EvalCase {
  text: string;
  expected: { sku: string; cantidad: number }[];
  /** What the case exercises (bundle, duration, notation…); `general` when not said. */
  kind?: string;
  /** The language it is written in (es, en, pt, fr, de). */
  lang?: string;
  /** Words that must be in a phrase reported in `skipped` ("impresora"). */
  skipped?: string[];
}

/** Precision, recall and F1 of one kind of case. */
export interface KindScore {
  kind: string;
  cases: number;
  precision: number;
  recall: number;
  f1: number;
}

/** What {@link evaluate} measured. */
export interface EvalResult {
  precision: number;
  recall: number;
  f1: number;
  cases: number;
  /** The same scores per kind of case, by kind name. */
  kinds: KindScore[];
  /** One readable block per case that was not drafted exactly. */
  misses: string[];
  /** Milliseconds from the request to the first item (or to the end, when nothing is drafted). */
  p50: number;
  p95: number;
}

const here = dirname(fileURLToPath(import.meta.url));

/** The demo catalog (`demo/catalog.json` at the repository root) as the drafter sees it. */
export function demoCatalog(): CatalogProduct[] {
  const catalog = JSON.parse(readFileSync(join(here, '../../../../demo/catalog.json'), 'utf8')) as {
    org: { currency: string };
    products: {
      sku: string;
      nombre: string;
      unidad: string;
      precio_lista: number;
      tax_rate: number | null;
      aliases?: string[];
    }[];
  };
  return catalog.products.map((p) => ({
    id: p.sku,
    sku: p.sku,
    nombre: p.nombre,
    unidad: p.unidad,
    precio_lista: p.precio_lista,
    moneda: catalog.org.currency,
    tax_rate: p.tax_rate,
    aliases: p.aliases ?? [],
  }));
}

/** The cases of `fixtures/ai-draft-<name>.json`. */
export function loadCases(name: string): EvalCase[] {
  const path = join(here, 'fixtures', `ai-draft-${name}.json`);
  return (JSON.parse(readFileSync(path, 'utf8')) as { cases: EvalCase[] }).cases;
}

/**
 * Drafts every case with the catalog drafter and scores the (sku, cantidad) pairs.
 *
 * @param cases - the sentences and what they should give
 * @param catalog - the catalog to draft from
 * @defaultValue catalog - {@link demoCatalog}
 */
export async function evaluate(cases: EvalCase[], catalog = demoCatalog()): Promise<EvalResult> {
  const drafter = createCatalogDrafter();
  const counts = new Map<string, { hits: number; proposed: number; expected: number; cases: number }>();
  const times: number[] = [];
  const misses: string[] = [];
  const key = (x: { sku: string; cantidad: number }) => `${x.sku}×${x.cantidad}`;
  const plain = (x: string) =>
    x
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();
  for (const c of cases) {
    const skipped: SkippedPhrase[] = [];
    // Each request reads the catalog afresh, as the route does.
    const request = {
      prompt: c.text,
      catalog: catalog.map((p) => ({ ...p })),
      onSkip: (phrase: SkippedPhrase) => skipped.push(phrase),
    };
    const start = performance.now();
    const got: { sku: string; cantidad: number }[] = [];
    for await (const item of drafter.draft(request)) {
      if (got.length === 0) times.push(performance.now() - start);
      got.push({ sku: item.sku, cantidad: item.cantidad });
    }
    if (got.length === 0) times.push(performance.now() - start);
    const want = new Set(c.expected.map(key));
    // A word that should have been reported as skipped counts as an expected line.
    const reported = (c.skipped ?? []).filter((word) =>
      skipped.some((s) => plain(s.text).includes(plain(word))),
    );
    const hits = new Set(got.map(key).filter((k) => want.has(k))).size + reported.length;
    const expectedHere = c.expected.length + (c.skipped?.length ?? 0);
    const proposedHere = got.length + reported.length;
    const kind = c.kind ?? 'general';
    const count = counts.get(kind) ?? { hits: 0, proposed: 0, expected: 0, cases: 0 };
    count.hits += hits;
    count.proposed += proposedHere;
    count.expected += expectedHere;
    count.cases++;
    counts.set(kind, count);
    if (hits !== proposedHere || hits !== expectedHere) {
      misses.push(
        `  [${kind}] "${c.text}"\n     expected ${c.expected.map(key).join(', ') || '(nothing)'}${c.skipped ? `; skipped ${c.skipped.join(', ')}` : ''}\n     got      ${got.map(key).join(', ') || '(nothing)'}; skipped ${skipped.map((s) => `${s.text} (${s.reason})`).join(', ') || '(nothing)'}`,
      );
    }
  }
  const score = (x: { hits: number; proposed: number; expected: number }) => {
    const precision = x.proposed === 0 ? 1 : x.hits / x.proposed;
    const recall = x.expected === 0 ? 1 : x.hits / x.expected;
    const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
    return { precision, recall, f1 };
  };
  const total = { hits: 0, proposed: 0, expected: 0 };
  for (const x of counts.values()) {
    total.hits += x.hits;
    total.proposed += x.proposed;
    total.expected += x.expected;
  }
  const kinds = [...counts].map(([kind, x]) => ({ kind, cases: x.cases, ...score(x) }));
  times.sort((a, b) => a - b);
  const percentile = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0;
  return { ...score(total), cases: cases.length, kinds, misses, p50: percentile(0.5), p95: percentile(0.95) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      set: { type: 'string', default: 'dev' },
      'min-f1': { type: 'string' },
      'min-kind-f1': { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
  });
  const sets = values.set === 'all' ? ['dev', 'extra', 'kinds'] : [values.set ?? 'dev'];
  const result = await evaluate(sets.flatMap(loadCases));
  if (!values.quiet && result.misses.length > 0) console.log(`Misses:\n${result.misses.join('\n')}\n`);
  const two = (x: number) => x.toFixed(2);
  const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
  console.log(`first item p50 ${ms(result.p50)} ms, p95 ${ms(result.p95)} ms (sets: ${sets.join(', ')})`);
  console.log(
    `F1 ${two(result.f1)} (precision ${two(result.precision)}, recall ${two(result.recall)}) on ${result.cases} cases; first item p50 ${ms(result.p50)} ms`,
  );
  console.log(
    [
      'kind         cases  precision  recall  F1',
      ...result.kinds.map(
        (k) =>
          `${k.kind.padEnd(12)} ${String(k.cases).padStart(5)}  ${two(k.precision).padStart(9)}  ${two(k.recall).padStart(6)}  ${two(k.f1)}`,
      ),
    ].join('\n'),
  );
  const kindFloor = values['min-kind-f1'] === undefined ? undefined : Number(values['min-kind-f1']);
  for (const k of result.kinds) {
    if (kindFloor !== undefined && k.f1 < kindFloor) {
      console.error(`F1 of kind ${k.kind} ${two(k.f1)} is below the floor ${kindFloor}`);
      process.exitCode = 1;
    }
  }
  const floor = values['min-f1'] === undefined ? undefined : Number(values['min-f1']);
  if (floor !== undefined && result.f1 < floor) {
    console.error(`F1 ${two(result.f1)} is below the floor ${floor}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
