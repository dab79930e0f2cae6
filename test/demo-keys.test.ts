import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, freePort, ROOT, startServerProcess } from './support/processes.js';

/**
 * `svc-server seed` then `svc-server serve`, as design.md section 3 and docs/operations.md
 * describe them (no npm start, no DEMO_KEYS_FILE): seed writes the demo keys into the data
 * directory and serve finds them there, so the demo shop's widget and the seller page work.
 */
describe('seed, then serve: the demo works without npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-demo-keys-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('seed writes the keys to DATA_DIR/demo-keys.json (0600), and serve shows the demo pages with them', async () => {
    const env = { DATA_DIR: dataDir };
    const printed = await cli(['seed'], env);
    const file = join(dataDir, 'demo-keys.json');
    expect(printed.stdout).toContain(`demo keys written to ${file}`);
    // A second seed (new keys, as documented) replaces them.
    const seed = JSON.parse((await cli(['seed', '--json'], env)).stdout);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(seed);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const server = await startServerProcess(env);
    try {
      const home = await (await fetch(`${server.url}/`)).text();
      expect(home).toContain(`publishable-key="${seed.keys.pk_test}"`);
      const seller = await fetch(`${server.url}/demo/seller`);
      expect(seller.status).toBe(200);
      expect(await seller.text()).not.toContain(seed.keys.sk_test_write);
    } finally {
      await server.stop();
    }
  });

  it('writes no file when DEMO_KEYS_FILE is empty, and serve then has no demo keys', async () => {
    const other = mkdtempSync(join(tmpdir(), 'svc-demo-keys-off-'));
    try {
      const env = { DATA_DIR: other, DEMO_KEYS_FILE: '' };
      await cli(['seed', '--json'], env);
      expect(existsSync(join(other, 'demo-keys.json'))).toBe(false);
      const server = await startServerProcess(env);
      try {
        expect((await fetch(`${server.url}/demo/seller`)).status).toBe(404);
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('npm start keeps the keys where DEMO_KEYS_FILE says, and prints the ones it wrote there', async () => {
    const other = mkdtempSync(join(tmpdir(), 'svc-demo-start-'));
    const file = join(other, 'elsewhere', 'keys.json');
    const port = String(await freePort());
    const start = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATA_DIR: join(other, 'data'),
        DEMO_KEYS_FILE: file,
        PORT: port,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    start.stdout.on('data', (d) => (output += d));
    start.stderr.on('data', (d) => (output += d));
    try {
      const deadline = Date.now() + 60_000;
      while (!output.includes('Try: curl') && Date.now() < deadline && start.exitCode === null)
        await new Promise((r) => setTimeout(r, 50));
      expect(output).toContain('Try: curl');
      const keys = JSON.parse(readFileSync(file, 'utf8'));
      expect(output).toContain(`Publishable key  ${keys.keys.pk_test}`);
      expect(existsSync(join(other, 'data', 'demo-keys.json'))).toBe(false);
      const home = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      expect(home).toContain(`publishable-key="${keys.keys.pk_test}"`);
    } finally {
      const exited = new Promise((r) => start.once('exit', r));
      start.kill('SIGTERM');
      await exited;
      rmSync(other, { recursive: true, force: true });
    }
  });
});
