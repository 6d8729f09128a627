import { simModule } from '../adapters/sim/project-sim.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { hashString, uniform } from '../core/random.js';
import type { FakeAgentContext, FakeAgentScript } from './fake-jules-model.js';

/** Rates of the simulated Jules agent; every answer depends only on (seed, session title, messages). */
export interface SimJulesAgentOptions {
  readonly seed: number;
  /** The git repository behind the source (to read the files a patch replaces). */
  readonly gitDir: string;
  /** Sessions that fail outright (default 0.05). */
  readonly failRate?: number;
  /** Patches made against another commit (stale; default 0.05). */
  readonly staleRate?: number;
  /** Patches that do the wrong thing (default 0.1). */
  readonly errorRate?: number;
  /** Sessions that stop to ask a question first (default 0). */
  readonly askRate?: number;
}

const execFileAsync = promisify(execFile);
const WRONG = 'TODO: this does not do what the subtask asks';

/**
 * A simulated coding agent for the fake Jules server (`--worker jules-fake`): from the prompt MAKER
 * sends it writes the subtask's `index.md`, a runnable module with its test (and shared notes) in
 * the first folder the prompt names,
 * as a real unified diff against the starting branch, with seeded failures, stale patches, wrong
 * answers and questions. Correct sessions of one subtask agree byte for byte, so votes can decide.
 */
export function simJulesAgent(
  options: SimJulesAgentOptions,
): (context: FakeAgentContext) => Promise<FakeAgentScript> {
  return async (context) => {
    const task = parsePrompt(context.prompt);
    const slot = Number(/cand-(\d+)$/.exec(context.title)?.[1] ?? '0');
    const node = /n-(\S+) cand-/.exec(context.title)?.[1] ?? context.title;
    const u = (stream: number) =>
      uniform(
        options.seed,
        hashString(`${node}/jules`),
        slot,
        stream + 10 * context.messages.length,
      );
    if (context.messages.length === 0 && u(1) < (options.askRate ?? 0))
      return {
        askFeedback: `Should "${task.title}" also cover edge cases, or only the main path?`,
      };
    if (u(2) < (options.failRate ?? 0.05))
      return { fail: 'The environment could not be set up (simulated).' };
    const wrong = u(3) < (options.errorRate ?? 0.1);
    const body = [
      `# ${task.title}`,
      '',
      task.description,
      '',
      'Done when:',
      ...task.acceptance.map((a) => `- ${a}`),
      ...(context.messages.length > 0 ? ['', `Notes: ${context.messages.join(' / ')}`] : []),
      ...(wrong ? ['', WRONG] : []),
      '',
    ].join('\n');
    const dir = task.files.find((f) => f.endsWith('/')) ?? 'src/';
    // The runnable module and test the sim worker writes, so the subtask's check passes (or not).
    const edits: { path: string; content: string }[] = [
      { path: `${dir}index.md`, content: body },
      ...simModule(dir, task.title, wrong).map((e) => ({ path: e.path, content: e.content ?? '' })),
    ];
    const notes = task.files.find((f) => f.endsWith('NOTES.md'));
    if (notes !== undefined) edits.push({ path: notes, content: `- ${task.title}\n` });
    const before = await Promise.all(
      edits.map((e) => git(options.gitDir, 'show', `${context.baseCommit}:${e.path}`)),
    );
    const patch = edits.map((e, i) => wholeFileDiff(e.path, before[i], e.content)).join('');
    if (u(4) < (options.staleRate ?? 0.05)) {
      const older =
        (
          await git(options.gitDir, 'rev-parse', '--verify', '--quiet', `${context.baseCommit}^`)
        )?.trim() || undefined;
      if (older !== undefined) return { patch, baseCommitId: older };
    }
    return { patch };
  };
}

/** The task fields of a MAKER Jules prompt (see the Jules worker's `prompt`). */
export function parsePrompt(prompt: string): {
  title: string;
  description: string;
  acceptance: string[];
  files: string[];
} {
  const lines = prompt.split('\n');
  const at = lines.findIndex((l) => l.startsWith('Task: '));
  const title = at >= 0 ? (lines[at] as string).slice(6) : 'task';
  const description = at >= 0 ? (lines[at + 1] ?? '') : '';
  const acceptance: string[] = [];
  const done = lines.indexOf('Done when:');
  if (done >= 0)
    for (const line of lines.slice(done + 1)) {
      if (!line.startsWith('- ')) break;
      acceptance.push(line.slice(2));
    }
  const files = (lines.find((l) => l.startsWith('Files: ')) ?? '')
    .slice(7)
    .split(', ')
    .filter(Boolean);
  return { title, description, acceptance, files };
}

/** A unified diff replacing `path`'s whole content (`before` undefined: a new file). */
export function wholeFileDiff(path: string, before: string | undefined, after: string): string {
  if (before === after) return '';
  const split = (text: string) => {
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines;
  };
  const old = before === undefined ? [] : split(before);
  const next = split(after);
  const range = (n: number) => (n === 0 ? '0,0' : `1,${n}`);
  return [
    `diff --git a/${path} b/${path}\n`,
    before === undefined ? 'new file mode 100644\n' : '',
    `--- ${before === undefined ? '/dev/null' : `a/${path}`}\n`,
    `+++ b/${path}\n`,
    `@@ -${range(old.length)} +${range(next.length)} @@\n`,
    ...old.map((l) => `-${l}\n`),
    before !== undefined && before !== '' && !before.endsWith('\n')
      ? '\\ No newline at end of file\n'
      : '',
    ...next.map((l) => `+${l}\n`),
    after !== '' && !after.endsWith('\n') ? '\\ No newline at end of file\n' : '',
  ].join('');
}

/** A git command's output, or undefined when it fails (asynchronous: the fake never blocks). */
async function git(gitDir: string, ...args: string[]): Promise<string | undefined> {
  try {
    return (await execFileAsync('git', ['--git-dir', gitDir, ...args])).stdout;
  } catch {
    return undefined;
  }
}
