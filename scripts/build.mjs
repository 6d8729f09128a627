// Bundles each entry point into a self-contained ESM entry file in dist/ (Gemini CLI installs never run
// npm install), with what only some paths need (the engine, Gemini, Jules, GitHub, git) split into
// chunk files beside it, loaded by dynamic import() when first needed: the MCP server lists its tools
// without compiling them. dist/ is complete on its own: no node_modules.
// The live view's page (browser code, d3-hierarchy included) is bundled first and carried inside both
// bundles as a string, so the page works offline and nothing is served from beside them.
import { build } from 'esbuild';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
const entries = [
  { in: 'src/surfaces/cli/bin.ts', out: 'maker' },
  { in: 'src/surfaces/mcp/bin.ts', out: 'maker-mcp' },
];

const page = await build({
  entryPoints: ['src/surfaces/view/page/main.ts'],
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: ['chrome109', 'firefox115', 'safari16'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  write: false,
});
const style = await build({
  entryPoints: ['src/surfaces/view/page/styles.css'],
  bundle: true,
  minify: true,
  logLevel: 'warning',
  write: false,
});
const assets = { js: page.outputFiles[0].text, css: style.outputFiles[0].text };
await mkdir('dist', { recursive: true });
// Read by the sources when they run unbundled (tests); the bundles carry their own copy.
await writeFile('dist/view-page.js', assets.js);
await writeFile('dist/view-page.css', assets.css);

// The TypeScript compiler (syntax trees of code candidates, for vote classes) is large: bundled on its
// own, minified and without a source map, as dist/typescript.cjs, which the bundles load the first
// time a vote compares JavaScript or TypeScript candidates, through dist/typescript.js. That small
// module requires it: Node loads a CommonJS file of this size in less than half the time an import
// takes (an ES module, or CommonJS imported, whose exports are first found by parsing it all):
// about 0.23 s against 0.53 s a process, measured on 2026-12-02.
await build({
  // The compiler's own file as the entry, not a module requiring it: wrapped in a function (as a
  // required module is), it took as long to load as an import.
  entryPoints: [createRequire(import.meta.url).resolve('typescript')],
  outfile: 'dist/typescript.cjs',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
// The module the bundles import (scripts/typescript-shim.js), naming the code cache after the
// compiler file's hash; caches of earlier builds are removed.
const compilerHash = createHash('sha256')
  .update(await readFile('dist/typescript.cjs'))
  .digest('hex')
  .slice(0, 16);
await writeFile(
  'dist/typescript.js',
  (await readFile('scripts/typescript-shim.js', 'utf8')).replace('__SOURCE_HASH__', compilerHash),
);
for (const file of await readdir('dist'))
  if (/^typescript\.cjs\..*\.v8-cache/.test(file) && !file.includes(compilerHash))
    await rm(`dist/${file}`, { force: true });
const requireBanner =
  "import { createRequire as __makerCreateRequire } from 'node:module';\nconst require = __makerCreateRequire(import.meta.url);";
const typescriptAside = {
  name: 'typescript-aside',
  setup(b) {
    b.onResolve({ filter: /^typescript$/ }, () => ({ path: './typescript.js', external: true }));
  },
};

// Every command's help page, rendered from the command definitions by commander itself and carried
// in the bundle (MAKER_HELP_PAGES), so `maker --help`, `--version` and `<command> --help` load
// neither commander nor the definitions (src/surfaces/cli/help-pages.ts). The definitions are
// bundled and run once here; their commands' runs (loaded by import()) are left out.
const extractDir = await mkdtemp(join(tmpdir(), 'maker-help-'));
let helpPages;
try {
  await build({
    entryPoints: ['src/surfaces/cli/help-extract.ts'],
    outfile: join(extractDir, 'help-pages.mjs'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
    banner: { js: requireBanner },
    define: { MAKER_VERSION: JSON.stringify(pkg.version) },
    plugins: [
      {
        name: 'no-runs',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) =>
            args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
          );
        },
      },
    ],
  });
  const extract = await import(pathToFileURL(join(extractDir, 'help-pages.mjs')).href);
  helpPages = extract.allHelpPages();
} finally {
  await rm(extractDir, { recursive: true, force: true });
}

const { metafile } = await build({
  entryPoints: entries,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  splitting: true,
  chunkNames: 'chunk-[hash]',
  metafile: true,
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  // playwright-core is a development dependency, loaded only by `maker bench view`.
  external: ['playwright-core'],
  plugins: [typescriptAside],
  define: {
    MAKER_VERSION: JSON.stringify(pkg.version),
    // Strings, not objects: esbuild puts object defines in a chunk every entry loads.
    MAKER_VIEW_ASSETS: JSON.stringify(JSON.stringify(assets)),
    MAKER_HELP_PAGES: JSON.stringify(JSON.stringify(helpPages)),
  },
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __makerCreateRequire } from 'node:module';\nconst require = __makerCreateRequire(import.meta.url);",
  },
});
for (const entry of entries) await chmod(`dist/${entry.out}.js`, 0o755);
// The bundles are ES modules: said beside them, so a copy of dist/ with no package.json above it (an
// extension installed from the release archive) still loads as ESM on Node before 20.19, which has no
// module syntax detection, and later Node need not parse each file twice to find out.
await writeFile('dist/package.json', `${JSON.stringify({ type: 'module' })}\n`);
// Chunks of earlier builds: removed, so dist/ (and what is packed from it) holds this build's alone.
const written = new Set(Object.keys(metafile.outputs).map((path) => path.replace(/^dist\//, '')));
for (const file of await readdir('dist'))
  if (/^chunk-.*\.js(\.map)?$/.test(file) && !written.has(file)) await rm(`dist/${file}`);
