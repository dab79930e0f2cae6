// Checks a results file of `npm run bench` against the budgets without running the bench again:
// `tsx bench/check-budgets.ts [bench/results.json]`; exits 1 when a budget is missed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../test/support/processes.js';
import { type BudgetedResults, enforceBudgets } from './budgets.js';

const file = process.argv[2] ?? join(ROOT, 'bench/results.json');
enforceBudgets(JSON.parse(readFileSync(file, 'utf8')) as BudgetedResults);
