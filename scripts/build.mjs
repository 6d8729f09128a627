// Bundles each entry point into one self-contained ESM file in dist/ (Gemini CLI installs never run npm install).
import { build } from 'esbuild';
import { chmod, readFile } from 'node:fs/promises';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
const entries = [
  { in: 'src/surfaces/cli/bin.ts', out: 'maker' },
  { in: 'src/surfaces/mcp/bin.ts', out: 'maker-mcp' },
];

await build({
  entryPoints: entries,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  define: { MAKER_VERSION: JSON.stringify(pkg.version) },
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __makerCreateRequire } from 'node:module';\nconst require = __makerCreateRequire(import.meta.url);",
  },
});
for (const entry of entries) await chmod(`dist/${entry.out}.js`, 0o755);
