import type { Run, TreeNode } from '../tree/schema.js';
import { isSimulatedRun } from '../tree/simulated.js';
import {
  resultChecksKnown,
  checksSentence,
  nodeCheckCounts,
  runCheckCounts,
  type CheckCounts,
} from '../checks.js';
import { flagCounts, tallyText, mainRecord } from '../view/display.js';
import { mermaidMarkdown } from '../view/mermaid.js';
import { reopenLine } from '../view/reopens.js';
import { acceptanceTestLine } from '../acceptance-test.js';

/** GitHub refuses bodies past 65,536 characters. */
const MAX_BODY = 60_000;

/**
 * The pull request's title: the idea, marked when the run is simulated, and when its result is
 * unverified (no sandbox, checks off, or not every check ran) or its checks failed.
 */
export function pullRequestTitle(run: Run): string {
  const idea = run.idea.replace(/\s+/g, ' ').slice(0, 180);
  return `${isSimulatedRun(run.config) ? '[SIMULATED] ' : ''}${checksMark(run)}MAKER: ${idea}`;
}

/** `[UNVERIFIED] ` or `[CHECKS FAILED] ` once that is known, else nothing. */
function checksMark(run: Run): string {
  const counts = runCheckCounts(run);
  if (counts.failed > 0 && run.nodes[run.rootId]?.checks !== undefined) return '[CHECKS FAILED] ';
  return resultChecksKnown(run) && !counts.verified ? '[UNVERIFIED] ' : '';
}

/** The checks as a table: the result's, then each node's that has any. */
function checksTable(run: Run): string[] {
  const row = (who: string, c: CheckCounts) =>
    `| ${who} | ${c.ran} | ${c.passed} | ${c.failed} | ${c.notRun} | ${c.verified ? 'yes' : '**no**'} |`;
  const rows = [row('**result**', runCheckCounts(run))];
  for (const n of Object.values(run.nodes)) {
    if (n.id === run.rootId) continue;
    const c = nodeCheckCounts(run, n);
    if (c.ran + c.notRun > 0) rows.push(row(`\`${n.id}\` ${inline(n.title)}`, c));
  }
  return [
    checksSentence(run),
    '',
    '| node | ran | passed | failed | not run | verified |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.slice(0, 200),
  ];
}

/**
 * The pull request's body: the idea, the clarifications, the tree (a Mermaid diagram, then every
 * node with its title, status, votes and red flags) and the external sessions. Text from the run
 * (model output, the idea) is quoted, never interpreted as markup that could hide the rest.
 */
export function pullRequestBody(
  run: Run,
  sessionUrl: (id: string) => string | undefined = () => undefined,
): string {
  const simulated = isSimulatedRun(run.config);
  const lines: string[] = [];
  if (simulated)
    lines.push(
      '> **SIMULATED**: the plans and files of this run are placeholders from a simulation, not real work.',
      '',
    );
  lines.push(
    `Made by MAKER, run \`${run.id}\` (worker ${run.config.worker}, k = ${run.config.k}).`,
  );
  lines.push('', '## Idea', '', quote(run.idea));
  const clarifications = run.questions.filter(
    (q) => q.kind === 'clarify' && q.answer !== undefined,
  );
  if (clarifications.length > 0) {
    lines.push('', '## Clarifications', '');
    for (const q of clarifications) {
      const chosen = q.options.find((o) => o.id === q.answer?.optionId)?.label;
      lines.push(`- ${inline(q.prompt)} → ${inline(q.answer?.text ?? chosen ?? '')}`);
    }
  }
  lines.push('', '## Checks', '', ...checksTable(run));
  const reopens = run.reopens ?? [];
  if (reopens.length > 0)
    lines.push('', '## Reopened', '', ...reopens.map((r) => `- ${inline(reopenLine(r, run))}`));
  lines.push('', '## Tree', '', mermaidMarkdown(run, { maxChars: 20_000 }), '');
  const root = run.nodes[run.rootId];
  if (root !== undefined) walk(run, root, 0, lines);
  const sessions = sessionLinks(run, sessionUrl);
  if (sessions.length > 0) lines.push('', '## Sessions', '', ...sessions);
  const body = lines.join('\n');
  return body.length <= MAX_BODY ? body : `${body.slice(0, MAX_BODY)}\n\n… (cut)`;
}

function walk(run: Run, n: TreeNode, depth: number, lines: string[]): void {
  const tally = tallyText(mainRecord(n));
  const flags = Object.entries(flagCounts(n))
    .map(([rule, count]) => `${rule} ×${count}`)
    .join(', ');
  lines.push(
    `${'  '.repeat(depth)}- \`${n.id}\` ${inline(n.title)} — ${n.status}${tally === null ? '' : `, votes ${tally}`}${flags === '' ? '' : `, red flags: ${flags}`}`,
  );
  const test = acceptanceTestLine(n);
  if (test !== undefined) lines.push(`${'  '.repeat(depth + 1)}- ${inline(test)}`);
  for (const id of n.children) {
    const child = run.nodes[id];
    if (child !== undefined) walk(run, child, depth + 1, lines);
  }
}

function sessionLinks(run: Run, sessionUrl: (id: string) => string | undefined): string[] {
  const links: string[] = [];
  for (const n of Object.values(run.nodes))
    for (const id of n.externalIds ?? []) {
      const url = sessionUrl(id);
      links.push(`- \`${n.id}\`: ${url === undefined ? `session \`${inline(id)}\`` : url}`);
    }
  return links.slice(0, 500);
}

/** One line of text with nothing that starts markup a reader would not see (HTML, links, images). */
function inline(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200)
    .replace(/[<>[\]`*_|\\]/g, (c) => `\\${c}`);
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'))}`)
    .join('\n');
}
