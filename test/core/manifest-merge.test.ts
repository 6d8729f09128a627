import { describe, expect, it } from 'vitest';
import { mergeManifest } from '../../src/core/manifest-merge.js';

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

describe('structural merge of shared manifests', () => {
  const base = { name: 'x', scripts: { test: 'vitest' }, dependencies: { a: '^1.0.0' } };

  it('merges two added dependencies, scripts and a bin of package.json by key', () => {
    const ours = { ...base, dependencies: { a: '^1.0.0', lodash: '^4.17.21' }, bin: { x: 'x.js' } };
    const theirs = {
      ...base,
      scripts: { test: 'vitest', lint: 'eslint .' },
      dependencies: { a: '^1.0.0', chalk: '^5.0.0' },
    };
    const merged = mergeManifest('package.json', json(base), json(ours), json(theirs));
    expect(JSON.parse(merged ?? 'null')).toEqual({
      name: 'x',
      scripts: { test: 'vitest', lint: 'eslint .' },
      dependencies: { a: '^1.0.0', lodash: '^4.17.21', chalk: '^5.0.0' },
      bin: { x: 'x.js' },
    });
    expect(merged).toMatch(/^\{\n {2}"name"/);
  });

  it('leaves a key both sides changed differently as a conflict, and other files alone', () => {
    const ours = { ...base, dependencies: { a: '^2.0.0' } };
    const theirs = { ...base, dependencies: { a: '^3.0.0' } };
    expect(mergeManifest('package.json', json(base), json(ours), json(theirs))).toBeUndefined();
    expect(mergeManifest('src/data.json', json(base), json(ours), json(base))).toBeUndefined();
    expect(mergeManifest('package.json', json(base), '{ broken', json(base))).toBeUndefined();
  });

  it('merges pyproject.toml dependency lists as sets, and a manifest both sides created', () => {
    const b = '[project]\nname = "x"\ndependencies = ["click"]\n';
    const o = '[project]\nname = "x"\ndependencies = ["click", "rich"]\n';
    const t = '[project]\nname = "x"\ndependencies = ["click", "httpx"]\n';
    expect(mergeManifest('pyproject.toml', b, o, t)).toContain(
      'dependencies = [ "click", "rich", "httpx" ]',
    );
    const created = mergeManifest(
      'package.json',
      null,
      json({ name: 'x', dependencies: { a: '1' } }),
      json({ name: 'x', dependencies: { b: '1' } }),
    );
    expect(JSON.parse(created ?? 'null')).toEqual({ name: 'x', dependencies: { a: '1', b: '1' } });
    // Comments would be lost by writing TOML again: left to an integration.
    expect(mergeManifest('pyproject.toml', b, `# deps\n${o}`, t)).toBeUndefined();
  });
});
