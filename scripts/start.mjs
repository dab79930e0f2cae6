// `npm start`: seeds the demo sandbox on first start (PGlite in ./.data unless DATABASE_URL is
// set), then serves everything on http://127.0.0.1:8787 and prints the keys to try it with.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'packages/server/bin/svc-server.mjs');
const dataDir = process.env.DATA_DIR ?? join(root, '.data');
const port = process.env.PORT ?? '8787';
const host = process.env.HOST ?? '127.0.0.1';
const env = { ...process.env, DATA_DIR: dataDir, PORT: port, HOST: host };
// `seed` writes the demo keys to this file (mode 0600) and the demo pages read them from it: kept
// next to the sandbox data so every start can print them; they are test keys of a local demo
// organization (the database itself only holds their hashes). svc-server's default, and as there
// `DEMO_KEYS_FILE` names another file, or none when empty.
const keysFile = process.env.DEMO_KEYS_FILE ?? join(dataDir, 'demo-keys.json');
env.DEMO_KEYS_FILE = keysFile;

function step(message) {
  process.stdout.write(`\u001b[2m› ${message}\u001b[0m\n`);
}

if (
  existsSync(join(root, 'packages/elements/vite.config.ts')) &&
  !existsSync(join(root, 'packages/elements/dist'))
) {
  step('building the widget (first start)…');
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', env });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Seeded once per data directory. On PostgreSQL at every start, because this script cannot tell
// whether the keys in the file belong to that database (seeding is safe to repeat: it issues fresh
// keys and the earlier ones keep working). Keys without the PGlite data beside them (written by a
// seed against PostgreSQL), or no keys file at all, are seeded afresh.
let seed;
if (!keysFile || !existsSync(keysFile) || process.env.DATABASE_URL || !existsSync(join(dataDir, 'pglite'))) {
  step('creating the demo sandbox (a few seconds)…');
  const seeding = spawnSync(process.execPath, [cli, 'seed', '--json'], { cwd: root, env, encoding: 'utf8' });
  if (seeding.status !== 0) {
    process.stderr.write(seeding.stderr);
    process.exit(seeding.status ?? 1);
  }
  seed = JSON.parse(seeding.stdout);
} else {
  seed = JSON.parse(readFileSync(keysFile, 'utf8'));
}
const base = `http://${host}:${port}`;

const server = spawn(process.execPath, [cli, 'serve'], {
  cwd: root,
  env,
  stdio: ['ignore', 'inherit', 'pipe'],
});
let announced = false;
server.stderr.on('data', (chunk) => {
  const text = String(chunk);
  if (!announced && text.includes('listening on')) {
    announced = true;
    process.stdout.write(
      [
        '',
        `  \u001b[1mEstudio Nopal quoting demo is running\u001b[0m`,
        '',
        `  Demo page        ${base}/`,
        `  SPA · seller     ${base}/demo/spa/ · ${base}/demo/seller`,
        `  API reference    ${base}/docs/api (OpenAPI: ${base}/api/v1/openapi.json)`,
        `  API base URL     ${base}/api/v1 (every path below it, e.g. /me)`,
        `  Publishable key  ${seed.keys.pk_test}`,
        `  Secret key       ${seed.keys.sk_test_write}   (server-side only)`,
        '',
        '  Paste on a page served from an allowed origin:',
        `    <script src="${base}/elements/svc-elements.js" async></script>`,
        `    <svc-quote-form publishable-key="${seed.keys.pk_test}"></svc-quote-form>`,
        '',
        `  Try: curl -H "Authorization: Bearer ${seed.keys.sk_test_write}" ${base}/api/v1/me`,
        '',
      ].join('\n'),
    );
    return;
  }
  process.stderr.write(text);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code) => process.exit(code ?? 0));
