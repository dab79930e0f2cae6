#!/usr/bin/env bash
# The test command (`npm test`): every check and every test, nothing skipped.
# On a fresh Debian machine, as root, it installs what is missing (chromium, postgresql) with apt;
# elsewhere it says what is missing and how to install it. It starts a throwaway PostgreSQL
# cluster on loopback for the run and stops it afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/requirements.sh
source scripts/lib/postgres.sh
export PATH="$PWD/node_modules/.bin:$PATH"

started=$(date +%s)
step() { printf '\n\033[1m== %s\033[0m (%ss)\n' "$1" "$(( $(date +%s) - started ))"; }

step "requirements"
ensure_requirements

step "lint and format (biome)"
biome check .

step "types (tsc, strict)"
tsc -p tsconfig.json --noEmit

step "item drafter quality (eval:drafter, floor F1 0.9)"
tsx packages/server/src/drafting/eval.ts --set all --min-f1 0.9 --min-kind-f1 0.9 --quiet

step "PostgreSQL for the run"
start_test_postgres
trap stop_test_postgres EXIT

step "unit tests, the bench's own rules and server tests on PGlite"
TEST_DB=pglite vitest run --project core --project bench --project server

step "server tests on PostgreSQL"
TEST_DB=postgres TEST_DATABASE_URL="$TEST_PG_URL" vitest run --project server

step "build the widget (ES modules and the script-tag bundle)"
npm run build --silent
# The demo SPA imports the built package, so its types are checked once the package is built.
tsc -p demo/tsconfig.json --noEmit
node -e "const z=require('zlib'),fs=require('fs');const b=fs.readFileSync('packages/elements/dist/svc-elements.js');console.log('svc-elements.js: '+b.length+' B raw, '+z.gzipSync(b,{level:9}).length+' B gzip, '+z.brotliCompressSync(b).length+' B brotli')"

step "widget in Chromium (@web/test-runner against a seeded svc-server)"
node packages/elements/scripts/ssr-check.mjs
(cd packages/elements && PATH="$PWD/node_modules/.bin:$PATH" CHROME_PATH="$CHROME_PATH" wtr --config web-test-runner.config.mjs)

step "system tests (CLI, processes, PostgreSQL, the widget in Chromium)"
TEST_DATABASE_URL="$TEST_PG_URL" CHROME_PATH="$CHROME_PATH" vitest run --project system

step "done"
