import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, ROOT, type ServerProcess, startServerProcess } from './support/processes.js';

const run = promisify(execFile);

/** The ```sh blocks of a document that call the API: a line of theirs runs curl. */
function shellExamples(document: string): string[] {
  const markdown = readFileSync(join(ROOT, document), 'utf8');
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((b) => /^\s*curl\s/m.test(b));
}

/**
 * The curl walk-throughs of README.md, docs/api.md and docs/invoices.md, copied and pasted one
 * after the other into one shell, as a newcomer would, against a freshly seeded server: only the
 * key and the address are put in. Every call must answer 2xx (curl --fail-with-body), and what the
 * comments say happens must happen.
 */
describe('the shell examples of the docs, run in sequence', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-docs-examples-'));
  let server: ServerProcess;
  let key: string;
  beforeAll(async () => {
    key = JSON.parse((await cli(['seed', '--json'], { DATA_DIR: dataDir })).stdout).keys.sk_test_write;
    server = await startServerProcess({ DATA_DIR: dataDir });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every call with 2xx and does what the comments say', async () => {
    const blocks = ['README.md', 'docs/api.md', 'docs/invoices.md'].flatMap(shellExamples);
    expect(blocks.length).toBe(3);
    const script = [
      'set -euo pipefail',
      // Each answer on its own line; an HTTP error stops the script with its body.
      'curl() { command curl --fail-with-body "$@"; echo; }',
      ...blocks,
    ]
      .join('\n')
      .replaceAll('sk_test_…', key)
      .replaceAll('http://127.0.0.1:8787', server.url);
    const { stdout } = await run('bash', ['-c', script], { cwd: ROOT }).catch((error) => {
      throw new Error(`a documented call failed:\n${error.stdout}\n${error.stderr}`);
    });
    const answers = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line).data);
    // README: the quote with its coupon, (37,000 − 3,700) × 1.16.
    expect(answers).toContainEqual(expect.objectContaining({ folio: 'COT-000001', total: 38628 }));
    // api.md: sent, approved, partly paid, then invoiced.
    expect(answers).toContainEqual(
      expect.objectContaining({ status: 'approved', pagado: 10000, saldo: 28628 }),
    );
    expect(answers).toContainEqual(
      expect.objectContaining({
        status: 'invoiced',
        factura: expect.objectContaining({ numero: 'F-000001' }),
      }),
    );
    // invoices.md: finalized and stamped, a partial payment, then the rest.
    const invoices = answers.filter((data) => data?.object === 'invoice');
    expect(invoices.map((i) => [i.estado, i.saldo])).toEqual([
      ['open', 2320],
      ['open', 1320],
      ['paid', 0],
    ]);
    expect(invoices[0]).toMatchObject({ numero: 'F-000002', estado_fiscal: 'stamped' });
  });
});
