// The budgets `npm run bench` holds the widget and the service to (design.md §9): a run that
// misses one fails, so a regression cannot pass as a number in a table.

/** The budgets, in the units the bench measures. */
export const BUDGETS = {
  /** The script-tag bundle, brotli-compressed: 24 KB. */
  bundleBrotliBytes: 24 * 1024,
  /** The widget's first render after its configuration arrived, median of the bench's loads. */
  firstRenderMs: 50,
  /** The first drafted item through HTTP (SSE), median of the bench's requests, per database. */
  firstDraftedItemMs: 20,
} as const;

/** What bench/run.ts writes to bench/results.json that the budgets read. */
export interface BudgetedResults {
  widget_bundle?: { brotli: number };
  first_render?: { median_ms: number };
  pglite?: { first_drafted_item_ms?: { p50: number } };
  postgres?: { first_drafted_item_ms?: { p50: number } };
}

/** One budget against what was measured; a measure the run did not take counts as missed. */
export interface BudgetCheck {
  name: string;
  measured: number | undefined;
  budget: number;
  unit: 'B' | 'ms';
  met: boolean;
}

/** Every budget against `results`. */
export function checkBudgets(results: BudgetedResults): BudgetCheck[] {
  const check = (name: string, measured: number | undefined, budget: number, unit: BudgetCheck['unit']) => ({
    name,
    measured,
    budget,
    unit,
    met: measured !== undefined && measured <= budget,
  });
  const checks = [
    check('widget bundle, brotli', results.widget_bundle?.brotli, BUDGETS.bundleBrotliBytes, 'B'),
    check('widget first render after config', results.first_render?.median_ms, BUDGETS.firstRenderMs, 'ms'),
    check(
      'pglite: first drafted item',
      results.pglite?.first_drafted_item_ms?.p50,
      BUDGETS.firstDraftedItemMs,
      'ms',
    ),
  ];
  // PostgreSQL is measured only when the bench has one (npm run bench starts one).
  if (results.postgres) {
    checks.push(
      check(
        'postgres: first drafted item',
        results.postgres.first_drafted_item_ms?.p50,
        BUDGETS.firstDraftedItemMs,
        'ms',
      ),
    );
  }
  return checks;
}

/** Prints every budget and sets a failing exit code when one is missed. Returns whether all were met. */
export function enforceBudgets(results: BudgetedResults): boolean {
  const checks = checkBudgets(results);
  for (const c of checks) {
    const measured = c.measured === undefined ? 'not measured' : `${round(c.measured)} ${c.unit}`;
    console.log(
      `${c.met ? 'within budget' : 'BUDGET MISSED'}: ${c.name}: ${measured} (budget ${c.budget} ${c.unit})`,
    );
  }
  const met = checks.every((c) => c.met);
  if (!met) process.exitCode = 1;
  return met;
}

const round = (n: number) => Math.round(n * 10) / 10;
