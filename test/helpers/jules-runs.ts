import { expect } from 'vitest';
import type { Run } from '../../src/core/tree/schema.js';
import { summarise } from '../../src/core/view/summary.js';
import type { FakeAgentContext, FakeAgentScript, FakeJules } from '../../src/offline/fake-jules.js';
import { taskTitle } from './prompts.js';

/**
 * A fake Jules agent writing the first file the prompt names (`index.md` in a folder); by slot: 1 fails, 2 sends a patch
 * that does not apply; the others agree (so every vote is decided the same way, run after run).
 */
export function slotAgent(context: FakeAgentContext): FakeAgentScript {
  const named = /^Files: ([^,\n]+)/m.exec(context.prompt)?.[1] ?? 'NOTES.md';
  const file = named.endsWith('/') ? `${named}index.md` : named;
  const title = taskTitle(context.prompt) ?? 'task';
  const slot = Number(/cand-(\d+)$/.exec(context.title)?.[1] ?? '0');
  if (slot === 1) return { fail: 'The environment could not be set up.' };
  if (slot === 2)
    return {
      patch: `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-old\n+new\n`,
    };
  return {
    patch: `diff --git a/${file} b/${file}\nnew file mode 100644\n--- /dev/null\n+++ b/${file}\n@@ -0,0 +1 @@\n+# ${title}\n`,
  };
}

/**
 * Exactly once: every Jules session belongs to one candidate slot and every slot to one session,
 * and the run's `sessions` figure is what the fake sold.
 */
export function expectOneSessionPerSlot(run: Run, fake: FakeJules): void {
  const slots = Object.values(run.nodes).flatMap((n) =>
    (n.leaf?.draws ?? []).map((d) => ({
      id: d.externalId,
      title: `maker ${run.id} n-${n.id} cand-${(n.leaf?.attempt ?? 0) * 1000 + d.slot}`,
    })),
  );
  const sessions = [...fake.sessions].map(([id, s]) => ({ id, title: s.title }));
  expect(new Set(sessions.map((s) => s.title)).size).toBe(sessions.length);
  expect(slots.every((s) => s.id !== undefined)).toBe(true);
  const byTitle = (a: { title: string }, b: { title: string }) => a.title.localeCompare(b.title);
  expect([...slots].sort(byTitle)).toEqual([...sessions].sort(byTitle));
  expect(summarise(run).sessions).toBe(fake.sessions.size);
}

/** What a run decided, node by node: ids, kinds, statuses and each leaf draw's verdict. */
export function treeShape(run: Run) {
  return Object.values(run.nodes)
    .map((n) => ({
      id: n.id,
      kind: n.kind,
      status: n.status,
      draws: (n.leaf?.draws ?? []).map(
        (d) => `${d.status}:${d.flags.map((f) => f.rule).join(',')}`,
      ),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}
