import { describe, expect, it } from 'vitest';
import {
  DEPENDENCY_FILES,
  defaultInstall,
  dependencyKeyText,
  dependencyPlan,
} from '../../src/core/dependencies.js';

const files = (present: Record<string, string>) =>
  DEPENDENCY_FILES.map((path) => ({ path, content: present[path] ?? null }));

describe('the install a tree needs', () => {
  it.each([
    [['package.json'], undefined],
    [['package.json', 'package-lock.json'], 'npm ci --ignore-scripts --no-audit --no-fund'],
    [['package.json', 'pnpm-lock.yaml'], 'pnpm install --frozen-lockfile --ignore-scripts'],
    [['yarn.lock'], 'yarn install --frozen-lockfile --ignore-scripts --non-interactive'],
    [['yarn.lock', '.yarnrc.yml'], 'yarn install --immutable --mode=skip-build'],
    [['pyproject.toml', 'uv.lock'], 'uv sync --frozen --no-install-project --no-build'],
    [['go.mod', 'go.sum'], 'go mod download'],
  ])('from %j: %s', (present, command) => {
    expect(defaultInstall(new Set(present))).toBe(command);
  });

  it('installs every ecosystem present, pip into the cache', () => {
    const command = defaultInstall(new Set(['package-lock.json', 'requirements.txt', 'go.sum']));
    expect(command).toBe(
      `npm ci --ignore-scripts --no-audit --no-fund && python3 -m pip install --no-input --disable-pip-version-check --isolated --only-binary :all: --index-url "$MAKER_PIP_INDEX" --proxy "$MAKER_PROXY" --target "$MAKER_DEPS/python" -r requirements.txt && go mod download`,
    );
  });

  it('takes the run’s command over the default, and installs nothing for an empty one', () => {
    const tree = files({ 'package.json': '{}', 'package-lock.json': '{"a":1}' });
    expect(dependencyPlan(tree, undefined)?.command).toMatch(/^npm ci/);
    expect(dependencyPlan(tree, 'npm install')?.command).toBe('npm install');
    expect(dependencyPlan(tree, '')).toBeUndefined();
    expect(dependencyPlan(files({ 'package.json': '{}' }), undefined)).toBeUndefined();
    expect(dependencyPlan(files({}), 'make deps')).toEqual({ command: 'make deps', inputs: [] });
  });

  it('keys on the command and the lock files; manifests only without a lock file', () => {
    const key = (present: Record<string, string>, install?: string) =>
      dependencyKeyText(dependencyPlan(files(present), install) as never);
    const base = { 'package.json': '{"scripts":{}}', 'package-lock.json': '{"v":1}' };
    expect(key(base)).toBe(key({ ...base }));
    // A new script in the manifest: the same install.
    expect(key({ ...base, 'package.json': '{"scripts":{"test":"x"}}' })).toBe(key(base));
    // A changed lock file or command: another.
    expect(key({ ...base, 'package-lock.json': '{"v":2}' })).not.toBe(key(base));
    expect(key(base, 'npm install')).not.toBe(key(base));
    // No lock file: the manifest decides.
    expect(key({ 'package.json': 'a' }, 'npm install')).not.toBe(
      key({ 'package.json': 'b' }, 'npm install'),
    );
  });
});
