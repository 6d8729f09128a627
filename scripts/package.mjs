// Makes the release archive `gemini extensions install` accepts: the manifest, context, commands and
// the built server and CLI (each an entry file and the chunk files it loads, and dist/package.json,
// which says they are ES modules), with no node_modules
// (Gemini CLI never runs npm install).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';

const files = [
  'gemini-extension.json',
  'GEMINI.md',
  'README.md',
  'commands',
  'dist/package.json',
  'dist/maker-mcp.js',
  'dist/maker.js',
  // Loaded by the chunks the first time a vote compares JavaScript or TypeScript candidates: the
  // module they import, and the compiler it requires.
  'dist/typescript.js',
  'dist/typescript.cjs',
];
// The chunks the entry files import (build.mjs leaves only the current build's in dist/).
if (existsSync('dist'))
  for (const file of readdirSync('dist').sort())
    if (/^chunk-.*\.js$/.test(file)) files.push(`dist/${file}`);
for (const file of files) {
  if (!existsSync(file)) {
    console.error(`package: ${file} is missing (run npm run build first).`);
    process.exit(1);
  }
}
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const manifest = JSON.parse(readFileSync('gemini-extension.json', 'utf8'));
if (manifest.version !== version) {
  console.error(
    `package: gemini-extension.json is version ${manifest.version} but package.json is ${version}.`,
  );
  process.exit(1);
}
// A release's version is its tag's: `npm run package -- --tag v1.2.3`, or the tag a CI build runs
// for (GITHUB_REF_TYPE=tag, GITHUB_REF_NAME). Gemini CLI compares the installed manifest's version
// with the release tag when it checks for updates.
const tagAt = process.argv.indexOf('--tag');
const tag =
  tagAt >= 0
    ? process.argv[tagAt + 1]
    : process.env.GITHUB_REF_TYPE === 'tag'
      ? process.env.GITHUB_REF_NAME
      : undefined;
if (tag !== undefined && tag.replace(/^v/, '') !== version) {
  console.error(
    `package: the tag ${tag} is not version ${version} (package.json and gemini-extension.json): bump the version or tag v${version}.`,
  );
  process.exit(1);
}
mkdirSync('release', { recursive: true });
// The release's only asset, named for no platform (no "darwin", "linux" or "win32"): Gemini CLI's
// installer takes a single such asset; the manifest is at the archive's root.
const archive = 'release/maker-extension.tar.gz';
execFileSync('tar', ['-czf', archive, ...files]);
console.error(`package: wrote ${archive} (maker ${version})`);
