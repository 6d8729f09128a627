import type { FileTemplate, LeafBug, LeafSpec } from './types.js';

/**
 * What is wrong with a sample's code, if anything: a subtle bug, an obvious flaw, or the leaf's
 * {@link LeafSpec.misconception} (written the same way every time).
 */
export type Flaw =
  | 'correct'
  | 'off-by-one'
  | 'edge-case'
  | 'wrong-export'
  | 'missing-module'
  | 'truncated'
  | 'misconception';
/**
 * A slip in how a sample's answer was written down, on top of its code. `omission` ("// ... rest
 * unchanged") in either edit format; in the JSON format, `over-escaped` (every newline escaped
 * twice: one line of literal `\n`) and `escaped-literals` (only the escapes inside the code's
 * string literals doubled: `'\n'` becomes `'\\n'`); in the fenced format, `missing-path` (a
 * block without its `File:` line), `missing-close` (a block never closed) and `fence-inside` (a
 * file holding ``` lines fenced with only three backticks).
 */
export type Slip =
  | 'none'
  | 'over-escaped'
  | 'escaped-literals'
  | 'omission'
  | 'missing-path'
  | 'missing-close'
  | 'fence-inside';

/** Flaws a reviewer or judge can see at a glance (the others are subtle). */
export const OBVIOUS: ReadonlySet<Flaw | Slip> = new Set([
  'wrong-export',
  'missing-module',
  'truncated',
  'over-escaped',
  'omission',
]);

/** A source of numbers in [0, 1), by stream index: the same index gives the same number. */
export type Rand = (stream: number) => number;

const pick = <T>(items: readonly T[], r: number): T =>
  items[Math.min(items.length - 1, Math.floor(r * items.length))] as T;

/** How one sample writes code: names, indentation, comments, header, order of helpers. */
interface Style {
  readonly names: Readonly<Record<string, string>>;
  readonly indent: 2 | 4;
  readonly comments: boolean;
  readonly header: string | undefined;
  readonly shuffle: boolean;
}

function styleOf(t: FileTemplate, rand: Rand): Style {
  const names: Record<string, string> = {};
  Object.entries(t.names ?? {}).forEach(([name, spellings], i) => {
    // The canonical spelling half the time: real samples agree on names more often than not.
    names[name] = rand(20 + i) < 0.5 ? (spellings[0] ?? name) : pick(spellings, rand(40 + i));
  });
  const headers = t.headers ?? [];
  return {
    names,
    indent: rand(1) < 0.75 ? 2 : 4,
    comments: rand(2) < 0.6,
    header: headers.length > 0 && rand(3) < 0.5 ? pick(headers, rand(4)) : undefined,
    shuffle: rand(5) < 0.25,
  };
}

/** How a file's comments begin: `#` in Python, none in JSON (it has no comments), else `//`. */
export function commentLeader(path: string): string | undefined {
  if (path.endsWith('.py')) return '#';
  if (path.endsWith('.json')) return undefined;
  return '//';
}

/** A source of numbers that gives every sample the same, canonical style (see {@link styleOf}). */
const CANONICAL: Rand = () => 0.3;

/**
 * Renders a file template in a sample's style; `edits` (a bug's, a misconception's) are applied
 * first, `omit` drops a block.
 */
export function renderFile(
  t: FileTemplate,
  rand: Rand,
  options: { edits?: readonly Omit<LeafBug, 'kind'>[]; omit?: boolean } = {},
): string {
  const style = styleOf(t, rand);
  const leader = commentLeader(t.path) ?? '//';
  let blocks = t.blocks.map((b) => {
    let text = b.text;
    for (const edit of options.edits ?? [])
      if (edit.path === t.path && text.includes(edit.from))
        // A function, so `$'` and `$&` in the replacement are text, not patterns.
        text = text.replace(edit.from, () => edit.to);
    return text === b.text ? b : { ...b, text };
  });
  if (style.shuffle) {
    const helpers = blocks.flatMap((b, i) => (b.helper === true ? [i] : []));
    const reversed = [...helpers].reverse();
    const copy = [...blocks];
    helpers.forEach((at, i) => (copy[at] = blocks[reversed[i] as number] as (typeof blocks)[0]));
    blocks = copy;
  }
  if (options.omit === true && blocks.length > 1) {
    const helpers = blocks.flatMap((b, i) => (b.helper === true ? [i] : []));
    const at = helpers[helpers.length - 1] ?? blocks.length - 1;
    blocks = blocks.map((b, i) => (i === at ? { text: `${leader} ... rest unchanged` } : b));
  } else if (options.omit === true && blocks[0] !== undefined) {
    // One block: its second half becomes the comment, as a model eliding "the rest" writes it.
    const lines = blocks[0].text.trim().split('\n');
    const kept = lines.slice(0, Math.ceil(lines.length / 2));
    const close = leader === '#' ? [] : ['}'];
    blocks = [{ text: [...kept, `  ${leader} ... rest unchanged`, ...close].join('\n') }];
  }
  let text = blocks.map((b) => b.text.trim()).join('\n\n');
  text = text
    .split('\n')
    .flatMap((line) => {
      const comment = /^(\s*)(\/\/|#)~ (.*)$/.exec(line);
      if (comment === null) return [line];
      return style.comments ? [`${comment[1] ?? ''}${comment[2] ?? ''} ${comment[3] ?? ''}`] : [];
    })
    .map((line) => (style.indent === 4 ? line.replace(/^( +)/, (spaces) => spaces + spaces) : line))
    .join('\n');
  text = text.replace(/\$([A-Za-z]\w*)\$/g, (_, name: string) => style.names[name] ?? name);
  const header = commentLeader(t.path) === undefined ? undefined : style.header;
  return `${header === undefined ? '' : `${leader} ${header}\n\n`}${text}\n`;
}

/** One sample's files for (part of) a leaf, and what is wrong with them. */
export interface LeafSample {
  readonly files: readonly { readonly path: string; readonly content: string }[];
  readonly flaw: Flaw;
  readonly slip: Slip;
}

/**
 * A sample of `leaf`'s files (only those in `paths`, when given): correct with probability `p`,
 * else one of the ways models get code wrong; with the probabilities `slips` gives (those of the
 * edit format it answers in), also a slip in how it is written down. The flaws and slips touch the leaf's first file (its code) when it is written.
 */
export function sampleLeaf(
  leaf: LeafSpec,
  rand: Rand,
  knobs: { readonly p: number; readonly slips: readonly (readonly [Slip, number])[] },
  paths?: ReadonlySet<string>,
): LeafSample {
  const main = leaf.files[0];
  const writesMain = main !== undefined && (paths === undefined || paths.has(main.path));
  let flaw: Flaw = 'correct';
  const misconception = leaf.misconception;
  if (
    rand(100) >= knobs.p &&
    writesMain &&
    misconception !== undefined &&
    rand(105) < misconception.share
  )
    flaw = 'misconception';
  else if (rand(100) >= knobs.p && writesMain) {
    const r = rand(101);
    const subtle: Flaw = r < 0.25 ? 'off-by-one' : 'edge-case';
    flaw =
      r < 0.5
        ? leaf.bugs.some((b) => b.kind === subtle)
          ? subtle
          : (leaf.bugs[0]?.kind ?? 'truncated')
        : r < 0.65
          ? 'wrong-export'
          : r < 0.8
            ? 'missing-module'
            : 'truncated';
  }
  const total = knobs.slips.reduce((sum, [, rate]) => sum + rate, 0);
  let slip: Slip = 'none';
  if (writesMain && rand(102) < total) {
    let at = rand(103) * total;
    slip =
      knobs.slips.find(([, rate]) => (at -= rate) < 0)?.[0] ?? knobs.slips.at(-1)?.[0] ?? 'none';
  }
  return writeLeaf(leaf, rand, flaw, slip, paths);
}

/** A leaf's files (only those in `paths`, when given) written with the given flaw and slip. */
export function writeLeaf(
  leaf: LeafSpec,
  rand: Rand,
  flaw: Flaw,
  slip: Slip,
  paths?: ReadonlySet<string>,
): LeafSample {
  const templates = leaf.files.filter((f) => paths === undefined || paths.has(f.path));
  const main = leaf.files[0];
  const bug = leaf.bugs.find((b) => b.kind === flaw);
  const misconceived = flaw === 'misconception' ? leaf.misconception : undefined;
  const edits = misconceived?.edits ?? (bug === undefined ? [] : [bug]);
  let written = slip;
  const files = templates.map((t, i) => {
    // A misconception is written the same way every time: one style for every sample.
    const fileRand: Rand = misconceived !== undefined ? CANONICAL : (s) => rand(1000 * (i + 1) + s);
    let content = renderFile(t, fileRand, { edits, omit: t === main && slip === 'omission' });
    if (t !== main) return { path: t.path, content };
    const [right, wrong] = leaf.exportSlip;
    if (flaw === 'wrong-export')
      content = content.replace(new RegExp(`\\b${right}\\b`, 'g'), wrong);
    const python = t.path.endsWith('.py');
    if (flaw === 'missing-module') {
      const name = rand(104) < 0.5 ? 'assert' : 'format';
      content = python
        ? `from utils import ${name}_value\n${content}`
        : `import { ${name} } from './utils.mjs';\n${content}`;
    }
    if (flaw === 'truncated') {
      const lines = content.split('\n');
      const kept = lines.slice(0, Math.max(1, Math.floor(lines.length * 0.55)));
      // Python cut at a line end often still parses: an answer cut short stops mid-line.
      if (python) {
        const last = kept.findLastIndex((l) => l.trim() !== '');
        const line = kept[last] ?? '';
        kept[last] = line.slice(0, Math.ceil(line.length / 2));
        kept.length = last + 1;
      }
      content = kept.join('\n');
    }
    // Doubled escapes in string literals; a file with none can only have its newlines doubled.
    if (slip === 'escaped-literals' && /\\[nrt]/.test(content))
      content = content.replace(/\\(?=[nrt])/g, '\\\\');
    else if (slip === 'over-escaped' || slip === 'escaped-literals') {
      content = content.replace(/\n/g, '\\n');
      written = 'over-escaped';
    }
    return { path: t.path, content };
  });
  return { files, flaw, slip: written };
}
