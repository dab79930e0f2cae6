import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoKeysFileOf, readConfig } from '../packages/server/src/config.js';
import { cli, ROOT } from './support/processes.js';

/** The section of docs/operations.md under `heading`, up to the next `## `. */
function section(heading: string): string {
  const markdown = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  const start = markdown.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

/** Every environment variable `readConfig` (and the demo keys' default) reads, by recording them. */
function variablesRead(): string[] {
  const read = new Set<string>();
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get(_target, name) {
      if (typeof name === 'string') read.add(name);
      return undefined;
    },
  });
  readConfig(env);
  demoKeysFileOf(env, './.data');
  // `svc-server mcp` reads its key from the environment too (cli/mcp.ts).
  read.add('SVC_API_KEY');
  return [...read].sort();
}

/**
 * docs/operations.md's CLI and configuration tables against the CLI itself: every usage line of
 * `svc-server --help` is a row of the CLI table, and every variable the server reads is a row of
 * the configuration table and named by `--help`.
 */
describe('docs/operations.md and svc-server --help', () => {
  let help: string;
  beforeAll(async () => {
    help = (await cli(['--help'], {})).stdout;
  });

  it('lists every command of --help, as --help writes it', () => {
    const usage = help.slice(help.indexOf('Usage:'), help.indexOf('Environment:'));
    // A command, its continuation lines joined, without the words after it (two spaces or more).
    const commands = usage
      .replace(/\n {10,}/g, ' ')
      .split('\n')
      .filter((line) => line.startsWith('  svc-server '))
      .map((line) => line.trim().split(/ {2,}/)[0]!);
    expect(commands.map((c) => c.split(' ').slice(1, 3).join(' '))).toEqual([
      'serve [--port',
      'seed [--json]',
      'keys create',
      'keys rotate',
      'keys revoke',
      'orgs create',
      'mcp --key',
    ]);
    const table = section('CLI');
    for (const command of commands) expect(table).toContain(`| \`${command.replaceAll('|', '\\|')}\` |`);
  });

  it('describes every variable the server reads, and --help names each', () => {
    const variables = variablesRead();
    expect(variables).toEqual(expect.arrayContaining(['DATA_DIR', 'FISCAL_PROVIDER', 'DEMO_KEYS_FILE']));
    const table = section('Configuration');
    const environment = help.slice(help.indexOf('Environment:'));
    for (const variable of variables) {
      expect(table, variable).toMatch(new RegExp(`^\\| [^|]*\`${variable}\``, 'm'));
      expect(environment, variable).toMatch(new RegExp(`\\b${variable}\\b`));
    }
  });
});
