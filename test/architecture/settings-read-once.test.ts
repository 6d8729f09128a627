import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The use cases (src/app/) take `Settings`, the environment read once at the edge: only the files
 * below read variables themselves (import app/env.ts, the helpers that read one, or name
 * `process.env`). A new one is a
 * choice to make here, with its reason, not a raw environment creeping back into a use case.
 */
const READERS: Readonly<Record<string, string>> = {
  'app/settings.ts': 'reads the environment into Settings',
  'app/wiring/model-access.ts': 'readAccess: the model-access part of Settings',
  'app/start/quota-check.ts': 'declaredLimit: the daily-limit part of Settings',
  'app/wiring/seams.ts': "the crash tests' checkpoints, read from the environment of the process",
  'app/workers/kind.ts': "a worker kind's settings schema: its own variables, checked",
  'app/workers/jules.ts': "the jules kind's own variables (its schema lists them)",
  'app/workers/jules-fake.ts': "the jules-fake kind's own variable (its schema lists it)",
};

const SRC = resolve('src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Whether a file reads variables itself: it imports app/env.ts or names `process.env`. */
function readsEnvironment(file: string): boolean {
  const text = readFileSync(file, 'utf8');
  const imports = ts.preProcessFile(text, true, false).importedFiles.map((i) => i.fileName);
  return (
    imports.some((name) => /(^|\/)env\.js$/.test(name) && name.startsWith('.')) ||
    /\bprocess\.env\b/.test(text)
  );
}

describe('the environment in the use cases', () => {
  it('is read by the settings and the files that say why, nowhere else in src/app/', () => {
    const readers = files(join(SRC, 'app'))
      .filter(readsEnvironment)
      .map((f) => relative(SRC, f))
      .sort();
    expect(readers).toEqual(Object.keys(READERS).sort());
  });
});
