import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from './machine.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = join(ROOT, 'packages/server/bin/svc-server.mjs');

const run = promisify(execFile);

/**
 * The environment of a process of a test: without a data directory of its own (PostgreSQL runs),
 * no demo keys file either, or `seed` would write one into the repository's `./.data`, where
 * `npm start` would take it for its own.
 */
const testEnv = (env: Record<string, string>) => ({
  ...process.env,
  LOG_LEVEL: 'warn',
  ...(env.DATA_DIR === undefined && env.DEMO_KEYS_FILE === undefined ? { DEMO_KEYS_FILE: '' } : {}),
  ...env,
});

/** Runs `svc-server …args` to completion with `env` added. */
export async function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [CLI, ...args], { env: testEnv(env), cwd: ROOT });
}

/** A `svc-server serve` process on a free port, ready to answer. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `svc-server serve` and waits until it listens. */
export async function startServerProcess(
  env: Record<string, string>,
  fixedPort?: number,
): Promise<ServerProcess> {
  const port = fixedPort ?? (await freePort());
  const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port)], {
    env: testEnv(env),
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`svc-server exited ${child.exitCode}:\n${output}`);
    if (output.includes('listening on')) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`svc-server did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    child,
    output: () => output,
    stop(signal: NodeJS.Signals = 'SIGTERM') {
      return new Promise((resolve) => {
        // A process killed by a signal has no exit code, only its signal.
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      });
    },
  };
}

export { freePort };
