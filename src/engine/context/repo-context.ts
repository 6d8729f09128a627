import { languageOf, outline } from '../../core/outline.js';
import { hashString } from '../../core/random.js';
import { modelTextRedactor } from '../../core/secret-files.js';
import type { RepoContext } from '../../ports/planner.js';
import type { Repository } from '../../ports/workspace.js';
import {
  isFile,
  selectFiles,
  type Entry,
  type RepoContextRequest,
  type Selection,
} from './repo-selection.js';

/** Source files larger than this get no outline (generated or minified code). */
const OUTLINE_MAX_BYTES = 200_000;
const OUTLINE_CACHE = 20_000;
const BUILT_CACHE = 32;
/** Share of the budget kept for the map's bare path list while files are chosen. */
const MAP_SHARE = 0.5;
/** Room kept for the map's closing notes ("… N more paths", outlines left out). */
const NOTES = 160;

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
  readonly #workspace: Repository;
  readonly #outlines = new Map<string, readonly string[]>();
  readonly #built = new Map<string, Promise<RepoContext>>();

  constructor(workspace: Repository) {
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
    const picked = await selectFiles(this.#workspace, request);
    const raw = await this.#read(picked, budget);
    const { entries, byPath } = picked;
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
    // Whole files, within what the map's reserve leaves.
    const files = renderFiles(picked, budget - mapReserve, {
      has: (e) => raw.has(e),
      text: (e) => {
        const content = raw.text(e);
        return content === undefined ? undefined : redact(content);
      },
    });
    const { sections, used, omitted, shown } = files;

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

  /**
   * Reads what the context may show: the chosen files that could fit in `budget`, and source
   * files whose outline is not cached (which it caches). Text of a file read: undefined when it
   * was not read or is binary.
   */
  async #read(
    picked: Selection,
    budget: number,
  ): Promise<{ has(e: Entry): boolean; text(e: Entry): string | undefined }> {
    const { entries, scoped, dependent, others } = picked;
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
    const blobs = await this.#workspace.readBlobs([...wanted]);
    const raw = (e: Entry) => {
      const bytes = blobs.get(e.blob);
      return bytes === undefined || bytes.includes(0)
        ? undefined
        : Buffer.from(bytes).toString('utf8');
    };
    if (this.#outlines.size > OUTLINE_CACHE) this.#outlines.clear();
    for (const e of entries) {
      if (!isFile(e) || this.#outlines.has(e.blob) || languageOf(e.path) === undefined) continue;
      const content = e.size <= OUTLINE_MAX_BYTES ? raw(e) : undefined;
      if (content !== undefined) this.#outlines.set(e.blob, outline(e.path, content));
    }
    return { has: (e) => blobs.has(e.blob), text: raw };
  }
}

const builders = new WeakMap<Repository, RepoContextBuilder>();

/** The one builder of a workspace (its caches are shared by every node and role). */
export function repoContextBuilder(workspace: Repository): RepoContextBuilder {
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

/**
 * The sections of whole files, in order (scope, files to create, dependencies' files, related
 * files), each file whole or not at all within `room` characters; what did not fit is `omitted`.
 */
function renderFiles(
  picked: Selection,
  room: number,
  read: { has(e: Entry): boolean; text(e: Entry): string | undefined },
): { sections: string[]; used: number; omitted: string[]; shown: Set<string> } {
  let used = 0;
  const omitted: string[] = [];
  const shown = new Set<string>();
  const section = (header: string, files: readonly Entry[], label: (e: Entry) => string) => {
    const parts: string[] = [];
    let size = header.length;
    for (const e of files) {
      const content = read.text(e);
      const piece =
        content === undefined && e.size > 0 && read.has(e)
          ? `=== ${e.path}${label(e)} === (binary, ${e.size} bytes)\n`
          : `=== ${e.path}${label(e)} ===\n${content ?? ''}${content?.endsWith('\n') === false ? '\n' : ''}`;
      if (read.has(e) && used + size + piece.length <= room) {
        parts.push(piece);
        size += piece.length;
        shown.add(e.path);
      } else omitted.push(e.path);
    }
    if (parts.length === 0) return '';
    used += size;
    return `${header}${parts.join('')}`;
  };
  const { toCreate, dependencyOf } = picked;
  const creating =
    toCreate.length === 0
      ? ''
      : `Not in the repository yet (to be created): ${toCreate.join(', ')}\n`;
  used += creating.length;
  const scopeText = section(SCOPE_HEADER, picked.scoped, () => '');
  const depText = section(
    DEPENDENCY_HEADER,
    picked.dependent,
    (e) => ` (changed by "${dependencyOf.get(e.path) ?? ''}")`,
  );
  const otherText = section(RELATED_HEADER, picked.others, () => '');
  const sections = [scopeText, creating, depText, otherText].filter((t) => t !== '');
  return { sections, used, omitted, shown };
}

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
