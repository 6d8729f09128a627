import type { TreeChange } from '../core/candidate-policy.js';
import { languageOf, outline } from '../core/outline.js';
import { inScope } from '../core/paths.js';
import { hashString } from '../core/random.js';
import { modelTextRedactor, withheldFromModels } from '../core/secret-files.js';
import type { RepoContext } from '../ports/planner.js';
import { EMPTY_TREE, type Workspace } from '../ports/workspace.js';

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

export interface DependencyChange {
  readonly title: string;
  readonly from: string;
  readonly to: string;
}

/** Source files larger than this get no outline (generated or minified code). */
const OUTLINE_MAX_BYTES = 200_000;
const OUTLINE_CACHE = 20_000;
const BUILT_CACHE = 32;
/** Share of the budget kept for the map's bare path list while files are chosen. */
const MAP_SHARE = 0.5;
/** Room kept for the map's closing notes ("… N more paths", outlines left out). */
const NOTES = 160;

interface Entry {
  readonly path: string;
  readonly blob: string;
  readonly size: number;
  readonly mode: string;
  /** Never shown but by name: it may hold credentials, or it is MAKER's state. */
  readonly withheld: boolean;
}

const WITHHELD = ' (contents withheld)';
/** A path as the map lists it. */
const mapPath = (e: Entry) => (e.withheld ? `${e.path}${WITHHELD}` : e.path);

/**
 * Renders a node's view of the repository within a character budget: the files in its scope and
 * the files its dependencies changed, whole (each file whole or not at all), then a map of every
 * path with the top-level definitions of source files. Whatever the budget leaves out is named
 * in the text ("Also exists: …", "… N more paths"), never dropped silently. No credential is
 * shown: files that hold them by name (`.env`, `*.pem`, `id_rsa`, `.npmrc`, …) and MAKER's state
 * are listed with their contents withheld, and in every file shown (outlines included) the run's
 * configured keys and keys of known formats are redacted. Outlines are cached by blob, and built
 * contexts by request, so the candidates of one vote share one build.
 */
export class RepoContextBuilder {
  readonly #workspace: Workspace;
  readonly #outlines = new Map<string, readonly string[]>();
  readonly #built = new Map<string, Promise<RepoContext>>();

  constructor(workspace: Workspace) {
    this.#workspace = workspace;
  }

  /** `secrets` are the run's configured keys, redacted wherever they appear. */
  build(
    request: RepoContextRequest,
    budget: number,
    secrets: readonly string[] = [],
  ): Promise<RepoContext> {
    const whole = Math.max(0, Math.floor(budget));
    const key = JSON.stringify([request, whole, hashString(secrets.join('\0'))]);
    let built = this.#built.get(key);
    if (built === undefined) {
      built = this.#build(request, whole, modelTextRedactor(secrets));
      built.catch(() => this.#built.delete(key));
      if (this.#built.size >= BUILT_CACHE) this.#built.clear();
      this.#built.set(key, built);
    }
    return built;
  }

  async #build(
    request: RepoContextRequest,
    budget: number,
    redact: (text: string) => string,
  ): Promise<RepoContext> {
    const ws = this.#workspace;
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
    const isFile = (e: Entry) => !e.withheld && (e.mode === '100644' || e.mode === '100755');
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
    const dependent =
      request.mapOnly === true ? [] : entries.filter((e) => dependencyOf.has(e.path));
    const others = extra.filter((e) => !dependencyOf.has(e.path));

    // What to read: candidate files that could fit, and source files whose outline is not cached.
    // The map comes first: every path and, as far as it goes, every source file's outline.
    const wanted = new Set<string>();
    for (const e of [...scoped, ...dependent, ...others]) if (e.size < budget) wanted.add(e.blob);
    for (const e of entries)
      if (
        isFile(e) &&
        languageOf(e.path) !== undefined &&
        e.size <= OUTLINE_MAX_BYTES &&
        !this.#outlines.has(e.blob)
      )
        wanted.add(e.blob);
    const blobs = await ws.readBlobs([...wanted]);
    const raw = (e: Entry) => {
      const bytes = blobs.get(e.blob);
      return bytes === undefined || bytes.includes(0)
        ? undefined
        : Buffer.from(bytes).toString('utf8');
    };
    const text = (e: Entry) => {
      const content = raw(e);
      return content === undefined ? undefined : redact(content);
    };
    if (this.#outlines.size > OUTLINE_CACHE) this.#outlines.clear();
    for (const e of entries) {
      if (!isFile(e) || this.#outlines.has(e.blob) || languageOf(e.path) === undefined) continue;
      const content = e.size <= OUTLINE_MAX_BYTES ? raw(e) : undefined;
      if (content !== undefined) this.#outlines.set(e.blob, outline(e.path, content));
    }

    // Outlines known: the map's reserve holds them too.
    const mapReserve =
      request.mapOnly === true
        ? budget
        : Math.min(
            entries.reduce(
              (n, e) =>
                n + mapPath(e).length + 1 + (this.#outlines.get(e.blob)?.join('\n').length ?? 0),
              0,
            ) + MAP_HEADER.length,
            Math.floor(budget * MAP_SHARE),
          );
    const fileRoom = budget - mapReserve;

    // Whole files, within what the map's reserve leaves.
    let used = 0;
    const omitted: string[] = [];
    const shown = new Set<string>();
    const section = (header: string, files: readonly Entry[], label: (e: Entry) => string) => {
      const parts: string[] = [];
      let size = header.length;
      for (const e of files) {
        const content = text(e);
        const piece =
          content === undefined && e.size > 0 && blobs.has(e.blob)
            ? `=== ${e.path}${label(e)} === (binary, ${e.size} bytes)\n`
            : `=== ${e.path}${label(e)} ===\n${content ?? ''}${content?.endsWith('\n') === false ? '\n' : ''}`;
        if (blobs.has(e.blob) && used + size + piece.length <= fileRoom) {
          parts.push(piece);
          size += piece.length;
          shown.add(e.path);
        } else omitted.push(e.path);
      }
      if (parts.length === 0) return '';
      used += size;
      return `${header}${parts.join('')}`;
    };
    const creating =
      toCreate.length === 0
        ? ''
        : `Not in the repository yet (to be created): ${toCreate.join(', ')}\n`;
    used += creating.length;
    const scopeText = section(SCOPE_HEADER, scoped, () => '');
    const depText = section(
      DEPENDENCY_HEADER,
      dependent,
      (e) => ` (changed by "${dependencyOf.get(e.path) ?? ''}")`,
    );
    const otherText = section(RELATED_HEADER, others, () => '');

    // The tail naming what was left out, then the map in whatever remains.
    const omittedSet = new Set(omitted);
    const outlineOf = (e: Entry) =>
      shown.has(e.path) || omittedSet.has(e.path) || e.withheld
        ? []
        : (this.#outlines.get(e.blob) ?? []).map(redact);
    const tail = listOmitted(
      omitted.map((p) => `${p} (${byPath.get(p)?.size ?? 0} bytes)`),
      Math.max(0, budget - used - NOTES),
    );
    const sections = [scopeText, creating, depText, otherText].filter((t) => t !== '');
    // Sections are joined by blank lines; the map gets exactly what the rest leaves.
    let room = budget - used - tail.length - sections.length - 1;
    let map = renderMap(entries, outlineOf, room);
    let body = [map.text, ...sections, tail].filter((t) => t !== '').join('\n');
    while (body.length > budget && room > 0) {
      room -= body.length - budget;
      map = renderMap(entries, outlineOf, room);
      body = [map.text, ...sections, tail].filter((t) => t !== '').join('\n');
    }
    return {
      text: body,
      chars: body.length,
      budget,
      omitted: [...omitted, ...map.unlisted],
    };
  }
}

const builders = new WeakMap<Workspace, RepoContextBuilder>();

/** The one builder of a workspace (its caches are shared by every node and role). */
export function repoContextBuilder(workspace: Workspace): RepoContextBuilder {
  let builder = builders.get(workspace);
  if (builder === undefined) {
    builder = new RepoContextBuilder(workspace);
    builders.set(workspace, builder);
  }
  return builder;
}

const SCOPE_HEADER = 'Files in scope (complete contents):\n';
const DEPENDENCY_HEADER =
  'Files changed by the subtasks this one builds on (complete contents, as they are now):\n';
const RELATED_HEADER =
  'Project files that bear on it (configuration, files the task names, tests beside its files; complete contents):\n';
const MAP_HEADER = 'Repository map (every path; top-level definitions of source files):\n';

/** "Also exists: …" for left-out files, shortened to `room` characters with a count of the rest. */
function listOmitted(items: readonly string[], room: number): string {
  if (items.length === 0) return '';
  let text = 'Also exists (left out for the context budget): ';
  for (let i = 0; i < items.length; i++) {
    const piece = `${i === 0 ? '' : ', '}${items[i] as string}`;
    const rest = items.length - i;
    if (text.length + piece.length + (rest > 1 ? 30 : 1) > room) {
      if (i > 0) return `${text}, and ${rest} more\n`;
      const count = `Also exists: ${items.length} files left out for the context budget.\n`;
      return count.length <= room ? count : '';
    }
    text += piece;
  }
  return `${text}\n`;
}

/**
 * Every path (as many as fit), then outlines under paths while they fit: bare paths come first,
 * so an outline never displaces a path. Paths that do not fit are counted in a last line.
 */
function renderMap(
  entries: readonly Entry[],
  outlineOf: (e: Entry) => readonly string[],
  room: number,
): { text: string; unlisted: string[] } {
  if (entries.length === 0) return { text: '', unlisted: [] };
  const listRoom = room - NOTES;
  let size = MAP_HEADER.length;
  let listed = 0;
  for (const e of entries) {
    if (size + mapPath(e).length + 1 > listRoom) break;
    size += mapPath(e).length + 1;
    listed++;
  }
  const withOutline = new Set<number>();
  let outlinesLeft = 0;
  for (let i = 0; i < listed; i++) {
    const lines = outlineOf(entries[i] as Entry);
    if (lines.length === 0) continue;
    const cost = lines.reduce((n, l) => n + l.length + 3, 0);
    if (size + cost <= listRoom) {
      size += cost;
      withOutline.add(i);
    } else outlinesLeft++;
  }
  if (listed === 0) {
    const note = `(The repository has ${entries.length} paths; none fit in the context budget.)\n`;
    return { text: note.length <= room ? note : '', unlisted: entries.map((e) => e.path) };
  }
  const lines: string[] = [];
  for (let i = 0; i < listed; i++) {
    const e = entries[i] as Entry;
    lines.push(mapPath(e));
    if (withOutline.has(i)) for (const l of outlineOf(e)) lines.push(`  ${l}`);
  }
  const notes: string[] = [];
  if (listed < entries.length)
    notes.push(`… and ${entries.length - listed} more paths, not listed for the context budget.`);
  if (outlinesLeft > 0)
    notes.push(
      `(The definitions of ${outlinesLeft} more source files are left out for the budget.)`,
    );
  return {
    text: `${MAP_HEADER}${lines.join('\n')}\n${notes.map((n) => `${n}\n`).join('')}`,
    unlisted: entries.slice(listed).map((e) => e.path),
  };
}
