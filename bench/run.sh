#!/usr/bin/env bash
# `npm run bench`: builds the widget, starts a throwaway PostgreSQL like the tests do, and runs
# bench/run.ts against PGlite and PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/requirements.sh
source scripts/lib/postgres.sh
export PATH="$PWD/node_modules/.bin:$PATH"
ensure_requirements >/dev/null
npm run build --silent >/dev/null
start_test_postgres >/dev/null
trap stop_test_postgres EXIT
BENCH_DATABASE_URL="$TEST_PG_URL" tsx bench/run.ts
