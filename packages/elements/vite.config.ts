import { minify } from 'terser';
import { defineConfig, type Plugin } from 'vite';

/**
 * Collapses the whitespace inside our css`` templates: it means nothing to the browser but costs
 * bytes in the script-tag budget.
 */
function collapseTemplateWhitespace(): Plugin {
  return {
    name: 'svc-collapse-template-whitespace',
    transform(code, id) {
      if (!/packages\/elements\/src\/.*\.ts$/.test(id)) return null;
      // css`` templates hold no expressions or nested templates, so a plain rewrite is safe.
      return code.replace(/\bcss`([^`$]*)`/g, (_match, body: string) => {
        const bare = body.replace(/\/\*[\s\S]*?\*\//g, '');
        return `css\`${bare.replace(/\s*\n\s*/g, '').replace(/\s*([{};:,>])\s*/g, '$1')}\``;
      });
    },
  };
}

/**
 * Collapses the indentation left inside template literals (Lit's html`` text) in the minified
 * script: after minification, a newline followed by spaces only occurs inside templates, where
 * HTML treats any run of whitespace as one space.
 */
function collapseIndentation(): Plugin {
  return {
    name: 'svc-collapse-indentation',
    // After the bundler's own minification (renderChunk may run before it), so no JS comment
    // can swallow a joined line.
    generateBundle(_options, bundle) {
      for (const file of Object.values(bundle)) {
        if (file.type === 'chunk') file.code = file.code.replace(/\n {2,}/g, ' ');
      }
    },
  };
}

/**
 * Runs terser over the already minified script: a second minifier finds about 250 B (brotli) the
 * first one leaves, and the script tag has a size budget (three compress passes: 21 B fewer than
 * two in stop 39's build).
 */
function terserSecondPass(): Plugin {
  return {
    name: 'svc-terser-second-pass',
    async generateBundle(_options, bundle) {
      for (const file of Object.values(bundle)) {
        if (file.type !== 'chunk') continue;
        const result = await minify(file.code, { ecma: 2020, compress: { passes: 3 }, mangle: true });
        if (result.code) file.code = result.code;
      }
    },
  };
}

/**
 * Two builds of the widget:
 * - `vite build` → the ES modules for npm (`dist/index.js`, `dist/define.js`); lit, Floating UI
 *   stay dependencies, `@svc/core` is bundled in.
 * - `vite build --mode script` → `dist/svc-elements.js`, one self-contained minified classic
 *   script for the script tag (an IIFE also works as a module).
 */
export default defineConfig(({ mode }) => {
  const script = mode === 'script';
  return {
    plugins: [collapseTemplateWhitespace(), ...(script ? [collapseIndentation(), terserSecondPass()] : [])],
    build: {
      outDir: 'dist',
      emptyOutDir: !script,
      // ES2022 keeps class private members native instead of WeakMap helpers (smaller, faster).
      target: 'es2022',
      minify: true,
      sourcemap: false,
      reportCompressedSize: false,
      lib: script
        ? {
            entry: 'src/svc-elements.ts',
            formats: ['iife'],
            name: 'SvcElements',
            fileName: () => 'svc-elements.js',
          }
        : { entry: { index: 'src/index.ts', define: 'src/define.ts' }, formats: ['es'] },
      rolldownOptions: {
        external: script ? [] : [/^lit/, /^@lit\//, '@floating-ui/core'],
        // Library mode leaves ES output partly unminified unless the output asks for it.
        output: { minify: true },
      },
    },
  };
});
