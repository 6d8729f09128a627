import type { TreeChange } from '../../core/candidate-policy.js';
import { inScope } from '../../core/paths.js';
import { withheldFromModels } from '../../core/secret-files.js';
import { EMPTY_TREE, type Repository } from '../../ports/workspace.js';

/** What one node sees of the repository. */
export interface RepoContextRequest {
  /** The commit (or tree) the node works from. */
  readonly base: string;
  /** Its scope (paths, directories, globs); empty for the whole repository. */
  readonly scope: readonly string[];
  /** The work of the subtasks it builds on, each as the commits before and after it. */
  readonly dependencies: readonly DependencyChange[];
  /** The task's own words: files it names are shown whole, after the scope's. */
  readonly mentions?: string;
  /** Only the map (every path, outlines of source files): for judges, who read a diff. */
  readonly mapOnly?: boolean;
}

/** A subtask a node builds on: its title, and the commits before (`from`) and after (`to`) its work. */
export interface DependencyChange {
  readonly title: string;
  readonly from: string;
  readonly to: string;
}

/** A path of the node's base tree. */
export interface Entry {
  readonly path: string;
  readonly blob: string;
  readonly size: number;
  readonly mode: string;
  /** Never shown but by name: it may hold credentials, or it is MAKER's state. */
  readonly withheld: boolean;
}

/** A regular file a model may read (not withheld, not a link or a submodule). */
export function isFile(e: Entry): boolean {
  return !e.withheld && (e.mode === '100644' || e.mode === '100755');
}

/** What a node's view shows, chosen from its base tree (see {@link selectFiles}). */
export interface Selection {
  /** Every path of the base, sorted. */
  readonly entries: readonly Entry[];
  readonly byPath: ReadonlyMap<string, Entry>;
  /** Files in scope (for a whole-repository scope: what bears on the task first). */
  readonly scoped: readonly Entry[];
  /** Files the subtasks it builds on changed, with the title of the subtask that changed each. */
  readonly dependent: readonly Entry[];
  readonly dependencyOf: ReadonlyMap<string, string>;
  /** Other files that bear on it ({@link relevant}). */
  readonly others: readonly Entry[];
  /** Paths of its scope that do not exist yet. */
  readonly toCreate: readonly string[];
}

/** Chooses from `request.base` the files a node's view shows whole, by kind, most relevant first. */
export async function selectFiles(ws: Repository, request: RepoContextRequest): Promise<Selection> {
  const entries = (await ws.changes(EMPTY_TREE, request.base))
    .filter((c): c is TreeChange & { newBlob: string } => c.newBlob !== undefined)
    .map((c) => ({
      path: c.path,
      blob: c.newBlob,
      size: c.newSize ?? 0,
      mode: c.newMode ?? '',
      withheld: withheldFromModels(c.path),
    }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const everything = request.scope.length === 0;
  const inScopeFiles = entries.filter(
    (e) => isFile(e) && (everything || inScope(e.path, request.scope)),
  );
  const related = relevant(
    entries.filter(isFile),
    everything ? [] : inScopeFiles,
    request.scope,
    request.mentions ?? '',
  );
  // The whole repository in scope: what bears on the task first, then the rest.
  const scoped =
    request.mapOnly === true
      ? []
      : everything
        ? [...related, ...inScopeFiles.filter((e) => !related.includes(e))]
        : inScopeFiles;
  const extra = everything || request.mapOnly === true ? [] : related;
  const toCreate = request.scope.filter(
    (s) => !/[*?]/.test(s) && !entries.some((e) => inScope(e.path, [s])) && !s.endsWith('/'),
  );
  const dependencyOf = new Map<string, string>();
  for (const dep of request.dependencies)
    for (const change of await ws.changes(dep.from, dep.to)) {
      const entry = byPath.get(change.path);
      if (change.newBlob !== undefined && entry !== undefined && isFile(entry))
        if (!scoped.includes(entry) && !dependencyOf.has(entry.path))
          dependencyOf.set(entry.path, dep.title);
    }
  const dependent = request.mapOnly === true ? [] : entries.filter((e) => dependencyOf.has(e.path));
  const others = extra.filter((e) => !dependencyOf.has(e.path));

  return { entries, byPath, scoped, dependent, dependencyOf, others, toCreate };
}

/** Project configuration a change must fit: manifests, compiler and tool settings. */
const CONFIG =
  /^(package\.json|tsconfig[^/]*\.json|jsconfig\.json|pyproject\.toml|setup\.(cfg|py)|requirements[^/]*\.txt|Cargo\.toml|go\.mod|deno\.jsonc?|(vite|vitest|jest|eslint|webpack|rollup)\.config\.[cm]?[jt]s|\.eslintrc[^/]*|Makefile|CMakeLists\.txt|pom\.xml|build\.gradle(\.kts)?|Gemfile|composer\.json|__init__\.py)$/;

/**
 * Files that bear on a node beyond its scope, most relevant first: configuration in the
 * directories above its files (the root's included), files its task names, and tests beside its
 * files (`x.test.ts`, `test_x.py`, `x_test.go`, or under a `test`/`tests` directory).
 */
function relevant(
  entries: readonly Entry[],
  scoped: readonly Entry[],
  scope: readonly string[],
  mentions: string,
): Entry[] {
  const dirs = new Set(['']);
  for (const p of [...scope, ...scoped.map((e) => e.path)]) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  const dirOf = (p: string) => p.slice(0, Math.max(0, p.lastIndexOf('/')));
  const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
  const stems = new Set(scoped.map((e) => base(e.path).replace(/\.[^.]*$/, '')));
  const isTestOf = (p: string) => {
    const name = base(p);
    const m = /^(?:test_)?(.+?)(?:[._-](?:test|spec))?\.[^.]+$/.exec(name);
    const looksTest =
      /(^test_|[._-](test|spec)\.)/.test(name) || /(^|\/)(tests?|__tests__)\//.test(p);
    return looksTest && m !== null && stems.has(m[1] ?? '');
  };
  const config = entries.filter((e) => CONFIG.test(base(e.path)) && dirs.has(dirOf(e.path)));
  const named = entries.filter((e) => mentions.includes(e.path));
  const tests = entries.filter((e) => isTestOf(e.path));
  return [...new Set([...config, ...named, ...tests])].filter((e) => !scoped.includes(e));
}
