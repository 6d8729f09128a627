// dist/typescript.js: the TypeScript compiler (dist/typescript.cjs), required rather than imported,
// with V8's code cache for it kept beside it (scripts/build.mjs writes this file, naming the cache
// after the compiler file's hash, so a cache is only ever used for the file it was made from).
// Without the cache the compiler takes about 0.23 s to load; with it, about 0.08 s. A cache V8
// refuses (another Node version, a damaged file) is made again; where the folder is read-only, the
// compiler loads without one.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const dir = dirname(fileURLToPath(import.meta.url));
const file = join(dir, 'typescript.cjs');
const cacheFile = join(dir, `typescript.cjs.${'__SOURCE_HASH__'}.v8-cache`);

function load() {
  const source = readFileSync(file, 'utf8');
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // As Node wraps a CommonJS file.
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    { filename: file, ...(cachedData === undefined ? {} : { cachedData }) },
  );
  const module = { exports: {} };
  script
    .runInThisContext()
    .call(module.exports, module.exports, createRequire(file), module, file, dir);
  let cache = cachedData === undefined ? 'made' : script.cachedDataRejected ? 'remade' : 'used';
  if (cache !== 'used') {
    // Written whole under a name of its own, then renamed: a process reading it never sees half.
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, script.createCachedData());
      renameSync(temporary, cacheFile);
    } catch {
      rmSync(temporary, { force: true });
      cache = 'off';
    }
  }
  return { compiler: module.exports, cache };
}

const loaded = load();
/** How the code cache served this load: made, remade (refused by V8), used, or off (not writable). */
export const codeCache = loaded.cache;
export default loaded.compiler;
