/**
 * What a dependency install may fetch: only from the registries the person configured. Model-written
 * lock files are read before anything is installed, and every entry that would fetch from anywhere
 * else (a URL, a git repository, a local path), carry no integrity hash, or change how the package
 * manager runs is refused, by name. Pure: the install itself is `src/adapters/deps/`.
 */
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';

/** The registries installs reach, from the person's settings (never from a file in the repository). */
export interface Registries {
  /** npm's registry (npm, pnpm, yarn), ending with `/`. */
  readonly npm: string;
  /** Python package indexes (the simple API), each ending with `/`. */
  readonly pypi: readonly string[];
  /** Where the indexes' files are served from (origins: `https://files.pythonhosted.org`). */
  readonly pythonFiles: readonly string[];
}

/** The public registries, when the person configured none. */
export const DEFAULT_REGISTRIES: Registries = {
  npm: 'https://registry.npmjs.org/',
  pypi: ['https://pypi.org/simple/'],
  pythonFiles: ['https://files.pythonhosted.org'],
};

/** npm writes the public registry's address for "the configured registry" (replace-registry-host). */
const NPM_ALIASES = ['https://registry.npmjs.org/', 'https://registry.yarnpkg.com/'];

const HASHES = /^(sha512|sha384|sha256|sha1)-[A-Za-z0-9+/=]+$/;

/** `url` is under one of `bases` (same origin, path below). */
function under(url: string, bases: readonly string[]): boolean {
  return bases.some((b) => {
    const base = b.endsWith('/') ? b : `${b}/`;
    return url.startsWith(base) || `${url}/` === base;
  });
}

type Problems = string[];

function npmEntry(
  file: string,
  key: string,
  entry: Record<string, unknown>,
  registries: Registries,
  problems: Problems,
): void {
  if (entry['link'] === true) {
    problems.push(`${file}: ${key} links to ${String(entry['resolved'])}, a local folder`);
    return;
  }
  if (entry['inBundle'] === true || entry['bundled'] === true) return;
  const resolved = entry['resolved'];
  const integrity = entry['integrity'];
  // npm 11 leaves `resolved` out for registry packages ("the configured registry", by name and
  // version); one that names somewhere must name the registry.
  if (resolved !== undefined) {
    if (typeof resolved !== 'string' || !under(resolved, [registries.npm, ...NPM_ALIASES])) {
      problems.push(
        `${file}: ${key} is fetched from ${JSON.stringify(resolved)}, not the registry ${registries.npm}`,
      );
      return;
    }
  } else if (typeof entry['version'] !== 'string' || !/^\d+\.\d+\.\d+/.test(entry['version'])) {
    problems.push(`${file}: ${key} names no registry version`);
    return;
  }
  if (typeof integrity !== 'string' || !integrity.split(/\s+/).every((h) => HASHES.test(h)))
    problems.push(`${file}: ${key} has no integrity hash`);
}

function packageLock(file: string, text: string, registries: Registries): Problems {
  const problems: Problems = [];
  let lock: unknown;
  try {
    lock = JSON.parse(text);
  } catch {
    return [`${file} is not valid JSON`];
  }
  if (typeof lock !== 'object' || lock === null) return [`${file} is not a lock file`];
  const packages = (lock as { packages?: unknown }).packages;
  if (typeof packages === 'object' && packages !== null)
    for (const [key, entry] of Object.entries(packages))
      if (key !== '' && typeof entry === 'object' && entry !== null)
        npmEntry(file, key, entry as Record<string, unknown>, registries, problems);
  // Lock files of version 1 nest their entries under `dependencies`.
  const walk = (deps: unknown, path: string) => {
    if (typeof deps !== 'object' || deps === null) return;
    for (const [name, entry] of Object.entries(deps)) {
      if (typeof entry !== 'object' || entry === null) continue;
      const e = entry as Record<string, unknown>;
      if (packages === undefined) npmEntry(file, `${path}${name}`, e, registries, problems);
      walk(e['dependencies'], `${path}${name} > `);
    }
  };
  walk((lock as { dependencies?: unknown }).dependencies, '');
  return problems;
}

function yarnLock(text: string, registries: Registries): Problems {
  if (/^__metadata:/m.test(text)) return yarnBerryLock(text);
  const problems: Problems = [];
  for (const block of text.split(/\n\s*\n/)) {
    const header = block.split('\n').find((l) => l.trim() !== '' && !l.startsWith('#'));
    if (header === undefined || header.startsWith(' ')) continue;
    const name = header.replace(/:$/, '');
    const resolved = /^\s+resolved\s+"?([^"\s]+)"?/m.exec(block)?.[1];
    const integrity = /^\s+integrity\s+(\S+)/m.exec(block)?.[1];
    if (resolved === undefined) problems.push(`yarn.lock: ${name} names no registry address`);
    else if (!under(resolved, [registries.npm, ...NPM_ALIASES]))
      problems.push(
        `yarn.lock: ${name} is fetched from ${resolved}, not the registry ${registries.npm}`,
      );
    else if (integrity === undefined || !HASHES.test(integrity))
      problems.push(`yarn.lock: ${name} has no integrity hash`);
  }
  return problems;
}

function yarnBerryLock(text: string): Problems {
  let lock: unknown;
  try {
    lock = parseYaml(text);
  } catch {
    return ['yarn.lock is not valid YAML'];
  }
  const problems: Problems = [];
  for (const [key, entry] of Object.entries((lock ?? {}) as Record<string, unknown>)) {
    if (key === '__metadata' || typeof entry !== 'object' || entry === null) continue;
    const raw = (entry as Record<string, unknown>)['resolution'];
    const resolution = typeof raw === 'string' ? raw : JSON.stringify(raw ?? '');
    const protocol = /^(?:@[^@/]+\/)?[^@]+@([a-z]+):/.exec(resolution)?.[1];
    if (protocol === 'workspace' && resolution.endsWith('@workspace:.')) continue;
    if (protocol !== 'npm')
      problems.push(`yarn.lock: ${key} resolves to ${resolution}, not a registry package`);
    else if (typeof (entry as Record<string, unknown>)['checksum'] !== 'string')
      problems.push(`yarn.lock: ${key} has no checksum`);
  }
  return problems;
}

function pnpmLock(text: string, registries: Registries): Problems {
  let lock: unknown;
  try {
    lock = parseYaml(text);
  } catch {
    return ['pnpm-lock.yaml is not valid YAML'];
  }
  const problems: Problems = [];
  const packages = ((lock ?? {}) as Record<string, unknown>)['packages'];
  for (const [key, entry] of Object.entries((packages ?? {}) as Record<string, unknown>)) {
    const resolution = ((entry ?? {}) as Record<string, unknown>)['resolution'];
    const r = (resolution ?? {}) as Record<string, unknown>;
    if (typeof r['tarball'] === 'string' && !under(r['tarball'], [registries.npm, ...NPM_ALIASES]))
      problems.push(
        `pnpm-lock.yaml: ${key} is fetched from ${r['tarball']}, not the registry ${registries.npm}`,
      );
    else if (r['type'] !== undefined || r['repo'] !== undefined || r['directory'] !== undefined)
      problems.push(
        `pnpm-lock.yaml: ${key} is a ${typeof r['type'] === 'string' ? r['type'] : 'git'} package, not a registry one`,
      );
    else if (typeof r['integrity'] !== 'string' || !HASHES.test(r['integrity']))
      problems.push(`pnpm-lock.yaml: ${key} has no integrity hash`);
  }
  if (/:\s*['"]?(link|file):/m.test(text))
    problems.push('pnpm-lock.yaml links a local folder (link: or file:)');
  return problems;
}

/**
 * A requirements file may carry options that override the install's command line (another index,
 * `--no-binary` to build from source, `-e`, other files) and direct references that bypass the
 * index (`name @ https://…`, `git+…`, paths, archives). Only requirements by name and version,
 * with environment markers and `--hash` options, are accepted.
 */
function requirements(text: string): Problems {
  const problems: Problems = [];
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '') return;
    const where = `requirements.txt line ${i + 1} (\`${line.slice(0, 120)}\`)`;
    if (line.startsWith('-')) {
      problems.push(`${where}: options are not accepted from the repository`);
      return;
    }
    const [requirement = '', ...options] = line.split(/\s+--/);
    if (options.some((o) => !/^hash[=\s]/.test(o)))
      problems.push(`${where}: only --hash may follow a requirement`);
    if (/[@]|:\/\/|^[./~]|\.(whl|zip|tar\.gz|tgz|tar\.bz2)$|^(git|hg|svn|bzr)\+/i.test(requirement))
      problems.push(`${where}: a direct reference, not a package from the index`);
    else if (!/^[A-Za-z0-9][A-Za-z0-9._-]*(\[[^\]]*\])?\s*([<>=!~;(].*)?$/.test(requirement))
      problems.push(`${where}: not a requirement by name`);
  });
  return problems;
}

function uvLock(text: string, registries: Registries): Problems {
  let lock: Record<string, unknown>;
  try {
    lock = parseToml(text);
  } catch {
    return ['uv.lock is not valid TOML'];
  }
  const problems: Problems = [];
  const packages = Array.isArray(lock['package']) ? (lock['package'] as unknown[]) : [];
  for (const p of packages) {
    const entry = (p ?? {}) as Record<string, unknown>;
    const name = typeof entry['name'] === 'string' ? entry['name'] : '?';
    const source = (entry['source'] ?? {}) as Record<string, unknown>;
    const kind = Object.keys(source)[0];
    if (kind === 'virtual' || kind === 'editable') {
      if (source[kind] !== '.') problems.push(`uv.lock: ${name} is a local folder (${kind})`);
      continue;
    }
    if (kind !== 'registry' || !under(String(source['registry']), registries.pypi))
      problems.push(`uv.lock: ${name} comes from ${JSON.stringify(source)}, not the index`);
    const files = [
      entry['sdist'],
      ...(Array.isArray(entry['wheels']) ? (entry['wheels'] as unknown[]) : []),
    ];
    for (const f of files) {
      const url = ((f ?? {}) as Record<string, unknown>)['url'];
      if (typeof url === 'string' && !under(url, [...registries.pythonFiles, ...registries.pypi]))
        problems.push(`uv.lock: ${name} downloads ${url}, not from the index`);
    }
  }
  return problems;
}

/** `.yarnrc.yml` settings that change nothing of what is fetched or run; every other one is refused. */
const YARNRC_KEYS = new Set([
  'nodeLinker',
  'enableTelemetry',
  'enableGlobalCache',
  'compressionLevel',
  'pnpMode',
  'nmMode',
  'nmHoistingLimits',
  'enableImmutableInstalls',
  'enableProgressBars',
  'enableColors',
  'defaultSemverRangePrefix',
]);

function yarnrc(text: string): Problems {
  let settings: unknown;
  try {
    settings = parseYaml(text);
  } catch {
    return ['.yarnrc.yml is not valid YAML'];
  }
  return Object.keys(settings ?? {})
    .filter((k) => !YARNRC_KEYS.has(k))
    .map((k) => `.yarnrc.yml sets ${k}, which installs do not take from the repository`);
}

/**
 * Why the dependency files of a tree must not be installed from, one line per refused entry
 * naming its file and entry or line; empty when every entry fetches from the configured registries.
 */
export function lockProblems(
  files: readonly { readonly path: string; readonly content: string }[],
  registries: Registries,
): string[] {
  return files.flatMap((f) => {
    switch (f.path) {
      case 'package-lock.json':
      case 'npm-shrinkwrap.json':
        return packageLock(f.path, f.content, registries);
      case 'yarn.lock':
        return yarnLock(f.content, registries);
      case 'pnpm-lock.yaml':
        return pnpmLock(f.content, registries);
      case 'requirements.txt':
        return requirements(f.content);
      case 'uv.lock':
        return uvLock(f.content, registries);
      case '.yarnrc.yml':
        return yarnrc(f.content);
      default:
        return [];
    }
  });
}
