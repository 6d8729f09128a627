import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * `npm ci` on the oldest Node the README names is clean: no package in the lock file declares an
 * `engines.node` range that Node does not satisfy (npm would print `EBADENGINE` for each). Read from
 * the lock file itself, so a dependency update that raises a floor fails here, not on a person's
 * machine.
 */
const root = process.cwd();
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
};

/** The Node version the README's "On a fresh machine" section asks for, e.g. "20.19.0". */
function readmeFloor(): string {
  const section = readme.split('## On a fresh machine')[1]?.split('\n## ')[0] ?? '';
  const stated = /Node\.js ≥ (\d+(?:\.\d+){0,2})/.exec(section)?.[1];
  expect(stated, 'the README states the Node version to build with').toBeDefined();
  return semver.coerce(stated)?.version ?? '';
}

/** Packages allowed to ask for a newer Node, each with its reason (none today). */
const KNOWN: readonly RegExp[] = [];

describe('the Node floor of an install from source', () => {
  it('every package in package-lock.json accepts the Node version the README names', () => {
    const floor = readmeFloor();
    const refused = Object.entries(lock.packages).flatMap(([path, entry]) => {
      // Old lock entries may list engines as an array of strings; npm checks the object form only.
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      const name = path.replace(/^.*node_modules\//, '');
      if (range === undefined || semver.satisfies(floor, range) || KNOWN.some((k) => k.test(name)))
        return [];
      return [
        `${path.replace(/^.*node_modules\//, '')}@${entry.version ?? '?'} needs node ${range}`,
      ];
    });
    expect(refused, `npm ci on Node ${floor} would warn EBADENGINE for these`).toEqual([]);
  });

  it("the package's own engines range accepts that version too", () => {
    expect(semver.satisfies(readmeFloor(), pkg.engines.node)).toBe(true);
  });
});
