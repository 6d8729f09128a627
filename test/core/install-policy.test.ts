import { describe, expect, it } from 'vitest';
import { DEFAULT_REGISTRIES, lockProblems } from '../../src/core/install-policy.js';

const R = DEFAULT_REGISTRIES;
const SHA =
  'sha512-XExcO+dvLKvVtNTibSTBej1NCAbaGhWn9Ww1ZPx80qsahhPFe/8jgWP0IchNe0F3HwkU7n8ejhH8bjonqht8mQ==';
const lock = (packages: Record<string, unknown>) =>
  JSON.stringify({
    name: 'app',
    lockfileVersion: 3,
    packages: { '': { name: 'app' }, ...packages },
  });
const problems = (path: string, content: string) => lockProblems([{ path, content }], R);

describe('package-lock.json', () => {
  it('accepts registry packages, with or without `resolved` (npm 11 leaves it out)', () => {
    expect(
      problems(
        'package-lock.json',
        lock({
          'node_modules/a': { version: '1.0.0', integrity: SHA },
          'node_modules/b': {
            version: '2.0.0',
            resolved: 'https://registry.npmjs.org/b/-/b-2.0.0.tgz',
            integrity: SHA,
          },
          'node_modules/b/node_modules/c': { version: '1.0.0', inBundle: true },
        }),
      ),
    ).toEqual([]);
  });

  it('refuses, by entry, a tarball elsewhere, git, a local link, a missing integrity', () => {
    expect(
      problems(
        'package-lock.json',
        lock({
          'node_modules/evil': {
            version: '1.0.0',
            resolved: 'https://evil.example/e.tgz',
            integrity: SHA,
          },
          'node_modules/git': {
            version: '1.0.0',
            resolved: 'git+ssh://git@github.com/x/y.git#abc',
          },
          'node_modules/local': { resolved: '../outside', link: true },
          'node_modules/bare': { version: '1.0.0' },
          'node_modules/spec': { version: 'github:x/y', integrity: SHA },
        }),
      ),
    ).toEqual([
      'package-lock.json: node_modules/evil is fetched from "https://evil.example/e.tgz", not the registry https://registry.npmjs.org/',
      'package-lock.json: node_modules/git is fetched from "git+ssh://git@github.com/x/y.git#abc", not the registry https://registry.npmjs.org/',
      'package-lock.json: node_modules/local links to ../outside, a local folder',
      'package-lock.json: node_modules/bare has no integrity hash',
      'package-lock.json: node_modules/spec names no registry version',
    ]);
  });

  it('holds a configured registry, and a file that is not JSON', () => {
    const local = { ...R, npm: 'http://127.0.0.1:4873/' };
    const entry = {
      version: '1.0.0',
      resolved: 'http://127.0.0.1:4873/a/-/a-1.0.0.tgz',
      integrity: SHA,
    };
    expect(
      lockProblems(
        [{ path: 'package-lock.json', content: lock({ 'node_modules/a': entry }) }],
        local,
      ),
    ).toEqual([]);
    expect(problems('package-lock.json', lock({ 'node_modules/a': entry }))).toHaveLength(1);
    expect(problems('npm-shrinkwrap.json', '{')).toEqual(['npm-shrinkwrap.json is not valid JSON']);
  });
});

describe('requirements.txt', () => {
  it('accepts requirements by name, version, extras, markers and hashes', () => {
    expect(
      problems(
        'requirements.txt',
        '# pinned\nrequests==2.31.0\nurllib3[socks]>=2 ; python_version >= "3.8"\nidna==3.6 \\\n    --hash=sha256:abc\n\n',
      ),
    ).toEqual([]);
  });

  it('refuses option lines and direct references, naming the line', () => {
    expect(
      problems(
        'requirements.txt',
        [
          '--index-url https://evil.example/simple',
          '--extra-index-url https://evil.example/simple',
          '-e git+https://github.com/x/y.git#egg=y',
          'evil @ https://evil.example/evil-1.0.tar.gz',
          'git+https://github.com/x/y.git',
          './local-pkg',
          'pkg.whl',
          'ok==1 --no-binary :all:',
          '--no-binary :all:',
        ].join('\n'),
      ),
    ).toEqual([
      'requirements.txt line 1 (`--index-url https://evil.example/simple`): options are not accepted from the repository',
      'requirements.txt line 2 (`--extra-index-url https://evil.example/simple`): options are not accepted from the repository',
      'requirements.txt line 3 (`-e git+https://github.com/x/y.git#egg=y`): options are not accepted from the repository',
      'requirements.txt line 4 (`evil @ https://evil.example/evil-1.0.tar.gz`): a direct reference, not a package from the index',
      'requirements.txt line 5 (`git+https://github.com/x/y.git`): a direct reference, not a package from the index',
      'requirements.txt line 6 (`./local-pkg`): a direct reference, not a package from the index',
      'requirements.txt line 7 (`pkg.whl`): a direct reference, not a package from the index',
      'requirements.txt line 8 (`ok==1 --no-binary :all:`): only --hash may follow a requirement',
      'requirements.txt line 9 (`--no-binary :all:`): options are not accepted from the repository',
    ]);
  });
});

describe('yarn, pnpm and uv lock files, and .yarnrc.yml', () => {
  it('yarn 1: registry entries with integrity only', () => {
    const ok = `# yarn lockfile v1\n\na@^1.0.0:\n  version "1.0.0"\n  resolved "https://registry.yarnpkg.com/a/-/a-1.0.0.tgz#abc"\n  integrity ${SHA}\n`;
    expect(problems('yarn.lock', ok)).toEqual([]);
    const evil = `b@^1.0.0:\n  version "1.0.0"\n  resolved "https://evil.example/b.tgz"\n  integrity ${SHA}\n`;
    expect(problems('yarn.lock', evil)).toEqual([
      'yarn.lock: b@^1.0.0 is fetched from https://evil.example/b.tgz, not the registry https://registry.npmjs.org/',
    ]);
  });

  it('yarn berry: npm: resolutions with a checksum, the root workspace, nothing else', () => {
    const text = `__metadata:\n  version: 8\n\n"a@npm:^1.0.0":\n  version: 1.0.0\n  resolution: "a@npm:1.0.0"\n  checksum: 10c0/abc\n\n"app@workspace:.":\n  resolution: "app@workspace:."\n\n"x@exec:./gen.js":\n  resolution: "x@exec:./gen.js"\n`;
    expect(problems('yarn.lock', text)).toEqual([
      'yarn.lock: x@exec:./gen.js resolves to x@exec:./gen.js, not a registry package',
    ]);
  });

  it('pnpm: integrity only, no tarball elsewhere, no git, no links', () => {
    const text = `lockfileVersion: '9.0'\npackages:\n  a@1.0.0:\n    resolution: {integrity: ${SHA}}\n  b@1.0.0:\n    resolution: {tarball: https://evil.example/b.tgz}\n  c@1.0.0:\n    resolution: {type: git, repo: https://github.com/x/c, commit: abc}\n`;
    expect(problems('pnpm-lock.yaml', text)).toEqual([
      'pnpm-lock.yaml: b@1.0.0 is fetched from https://evil.example/b.tgz, not the registry https://registry.npmjs.org/',
      'pnpm-lock.yaml: c@1.0.0 is a git package, not a registry one',
    ]);
  });

  it('uv: registry packages with files from the index, the project itself', () => {
    const text = `version = 1\n\n[[package]]\nname = "app"\nversion = "0.1.0"\nsource = { virtual = "." }\n\n[[package]]\nname = "idna"\nversion = "3.6"\nsource = { registry = "https://pypi.org/simple" }\nwheels = [{ url = "https://files.pythonhosted.org/packages/idna-3.6-py3-none-any.whl" }]\n\n[[package]]\nname = "evil"\nversion = "1.0"\nsource = { git = "https://github.com/x/evil" }\n`;
    expect(problems('uv.lock', text)).toEqual([
      'uv.lock: evil comes from {"git":"https://github.com/x/evil"}, not the index',
    ]);
  });

  it('.yarnrc.yml: layout settings only', () => {
    expect(problems('.yarnrc.yml', 'nodeLinker: node-modules\n')).toEqual([]);
    expect(problems('.yarnrc.yml', 'yarnPath: ./evil.cjs\nenableScripts: true\n')).toEqual([
      '.yarnrc.yml sets yarnPath, which installs do not take from the repository',
      '.yarnrc.yml sets enableScripts, which installs do not take from the repository',
    ]);
  });
});
