/**
 * Which files at a repository's root say what its checks depend on, and the command that installs
 * those dependencies by default. Pure: the install itself is `src/adapters/deps/`.
 */

/** Lock files at a repository's root: what an install's result is a function of. */
export const LOCK_FILES: readonly string[] = [
  'package-lock.json',
  'npm-shrinkwrap.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'requirements.txt',
  'uv.lock',
  'go.mod',
  'go.sum',
];

/** Lock files and the manifests their installs also read (copied to the install, not keyed). */
export const DEPENDENCY_FILES: readonly string[] = [
  ...LOCK_FILES,
  'package.json',
  'pnpm-workspace.yaml',
  '.yarnrc.yml',
  'pyproject.toml',
];

/**
 * The default install for the lock files present, one per ecosystem (joined with `&&`), or
 * undefined when there is no lock file. Every one reads only the lock file (frozen: nothing is
 * resolved anew) and runs no code of any package: npm, pnpm and yarn without lifecycle scripts,
 * pip and uv from binary wheels only, never building a source distribution. Where they fetch from
 * is the install's environment's (the configured registries, reached through MAKER's proxy):
 * `$MAKER_PIP_INDEX` the index, `$MAKER_PROXY` the proxy, `$MAKER_DEPS` the install's directory.
 */
export function defaultInstall(present: ReadonlySet<string>): string | undefined {
  const commands: string[] = [];
  if (present.has('pnpm-lock.yaml'))
    commands.push('pnpm install --frozen-lockfile --ignore-scripts');
  else if (present.has('yarn.lock'))
    commands.push(
      present.has('.yarnrc.yml')
        ? 'yarn install --immutable --mode=skip-build'
        : 'yarn install --frozen-lockfile --ignore-scripts --non-interactive',
    );
  else if (present.has('package-lock.json') || present.has('npm-shrinkwrap.json'))
    commands.push('npm ci --ignore-scripts --no-audit --no-fund');
  if (present.has('uv.lock')) commands.push('uv sync --frozen --no-install-project --no-build');
  else if (present.has('requirements.txt'))
    commands.push(
      'python3 -m pip install --no-input --disable-pip-version-check --isolated --only-binary :all: --index-url "$MAKER_PIP_INDEX" --proxy "$MAKER_PROXY" --target "$MAKER_DEPS/python" -r requirements.txt',
    );
  if (present.has('go.sum')) commands.push('go mod download');
  return commands.length === 0 ? undefined : commands.join(' && ');
}

/** What to install for a tree: the command and the dependency files it reads (path, content). */
export interface DependencyPlan {
  readonly command: string;
  readonly inputs: readonly { readonly path: string; readonly content: string }[];
}

/**
 * The install a tree needs, from its root's dependency files and the run's `--install` choice:
 * undefined (the default for its lock files; none without one), `''` (never install) or a command.
 * Undefined when nothing is to be installed.
 */
export function dependencyPlan(
  files: readonly { readonly path: string; readonly content: string | null }[],
  install: string | undefined,
): DependencyPlan | undefined {
  const inputs = files.flatMap((f) =>
    f.content === null ? [] : [{ path: f.path, content: f.content }],
  );
  const command =
    install === undefined ? defaultInstall(new Set(inputs.map((f) => f.path))) : install.trim();
  return command === undefined || command === '' ? undefined : { command, inputs };
}

/**
 * The text a plan's cache key is the hash of: the command and the lock files, in a fixed order, so
 * equal lock files and command give one key and any change to them another. Manifests count only
 * when there is no lock file (a custom `--install` on a manifest alone): with one, the lock file
 * fixes what is installed, and a manifest edit (a new script) must not install again. `context`
 * (the tools' versions, the registries) keys the install too: another npm, another entry.
 */
export function dependencyKeyText(
  plan: DependencyPlan,
  context: Readonly<Record<string, string>> = {},
): string {
  const locks = plan.inputs.filter((f) => LOCK_FILES.includes(f.path));
  const inputs = [...(locks.length > 0 ? locks : plan.inputs)].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
  return JSON.stringify({
    v: 2,
    command: plan.command,
    inputs: inputs.map((f) => [f.path, f.content]),
    context: Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  });
}
