import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/processes.js';

/**
 * The React 19 snippets of README.md and docs/widget.md compile, as written, in a strict React 19
 * app (`@types/react` 19, `jsx: react-jsx`) whose tsconfig includes the package's `jsx.d.ts` as
 * docs/widget.md says. React 19's `react/jsx-runtime` reads `React.JSX`, never the global `JSX`.
 */
const JSX_TYPES = join(ROOT, 'packages/elements/src/jsx.d.ts');

/** The ```tsx blocks of a document that say they are for React 19. */
function react19Snippets(document: string): string[] {
  const markdown = readFileSync(join(ROOT, document), 'utf8');
  return [...markdown.matchAll(/```tsx\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((code) => code.includes('// React 19'));
}

/** Type-checks `files` (path → source, in a folder of the repository) and returns their errors. */
function typeErrors(files: Map<string, string>): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    jsx: ts.JsxEmit.ReactJSX,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['react'],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) =>
    files.has(name)
      ? ts.createSourceFile(name, files.get(name)!, language)
      : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
  const program = ts.createProgram([...files.keys(), JSX_TYPES], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && (files.has(d.file.fileName) || d.file.fileName === JSX_TYPES))
    .map((d) => `${d.file!.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('the JSX typings of <svc-quote-form> in a React 19 app', () => {
  const snippets = [...react19Snippets('README.md'), ...react19Snippets('docs/widget.md')];
  const file = (i: number) => join(ROOT, 'test', `react19-snippet-${i}.tsx`);

  it('finds the React 19 snippets of README.md and docs/widget.md', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(2);
    expect(snippets.every((code) => code.includes('<svc-quote-form'))).toBe(true);
  });

  it('compiles each of them as written', () => {
    const files = new Map(snippets.map((code, i) => [file(i), code]));
    expect(typeErrors(files)).toEqual([]);
  }, 60_000);

  it('types the element (not any): a missing key, a wrong attribute or ref is an error', () => {
    const errors = typeErrors(
      new Map([
        [file(100), 'export const A = () => <svc-quote-form locale="es" />;'],
        [file(101), 'export const B = () => <svc-quote-form publishable-key="pk" theme="neon" />;'],
        [
          file(102),
          [
            "import { useRef } from 'react';",
            'export const C = () => {',
            '  const ref = useRef<HTMLInputElement>(null);',
            '  return <svc-quote-form publishable-key="pk" ref={ref} />;',
            '};',
          ].join('\n'),
        ],
      ]),
    );
    expect(errors).toEqual([
      expect.stringContaining("Property ''publishable-key'' is missing"),
      expect.stringContaining('"neon"'),
      expect.stringContaining("Types of property 'current' are incompatible"),
    ]);
  }, 60_000);
});
