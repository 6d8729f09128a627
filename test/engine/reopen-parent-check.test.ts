import { describe, expect, it } from 'vitest';
import { pullRequestBody } from '../../src/core/github/pull-request.js';
import type { EngineEvent } from '../../src/engine/events.js';
import { nodeDetail } from '../../src/surfaces/view/model.js';
import { ESM_CHECK, EsmManifestModel, GREET_TEST } from '../helpers/esm-manifest-model.js';
import { modelRun } from '../helpers/model-run.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const IDEA = 'a greeting library: an npm package of ES modules ("type": "module")';

/** A run of the idea on the scripted model, its overall check the ES module one; stopped at `stopWhen` and resumed, as after a kill. */
async function greetRun(
  dir: string,
  stopWhen?: (event: EngineEvent) => boolean,
  options: { readonly stubborn?: boolean } = {},
) {
  const model = new EsmManifestModel(options);
  const run = await modelRun(dir, {
    idea: IDEA,
    model,
    read: ['package.json', GREET_TEST.path],
    check: ESM_CHECK,
    stopWhen,
  });
  return {
    ...run,
    manifest: run.files['package.json'] ?? '',
    test: run.files[GREET_TEST.path] ?? '',
  };
}

describe("a parent's check that fails because of an earlier subtask's result (issue #36)", () => {
  let first: Awaited<ReturnType<typeof greetRun>> | undefined;

  it('reopens the CommonJS manifest and lands the ES module product, its acceptance test with it', async () => {
    first = await greetRun(await tempDir());
    const { outcome, run, events } = first;
    expect(outcome.status).toBe('done');
    expect(run.result?.landed).toBe(true);
    expect(run.reopens).toHaveLength(1);
    const [reopen] = run.reopens ?? [];
    expect(reopen).toMatchObject({
      node: '0',
      trigger: { kind: 'parent-check', node: run.rootId },
    });
    expect(JSON.parse(first.manifest)).toMatchObject({ type: 'module' });
    const said = events.find((e) => e.type === 'node-reopened');
    expect(said?.type === 'node-reopened' ? said.reason : '').toMatch(
      /^reopened 0 \(Set up the package\) because the parent's check failed on the composed result of .+: `SyntaxError/,
    );
    // The greeting module's kept acceptance test is part of its result, and so of the product.
    expect(first.test).toBe(GREET_TEST.content);
    expect(run.nodes['1']?.acceptanceTest).toMatchObject({ status: 'kept', committed: 'added' });
    // Said per leaf in the pull request's body and the live view.
    const line = `acceptance test ${GREET_TEST.path} (${GREET_TEST.command}): kept, fails without the code, committed with the result`;
    expect(pullRequestBody(run)).toContain(`- ${line.replace(/[_]/g, '\\_')}`);
    expect((await nodeDetail(run, '1', undefined))?.acceptanceTest).toBe(line);
    expect((await nodeDetail(run, '0', undefined))?.acceptanceTest).toBe(
      'no acceptance test (the planned check decides)',
    );
  }, 60_000);

  it('a reopening that does not mend the failure is not repeated, and the person is told why', async () => {
    const { outcome, run, events } = await greetRun(await tempDir(), undefined, {
      stubborn: true,
    });
    // --hitl auto cannot ask whether to land a failing result: it stops, saying what was tried.
    expect(outcome.status).toBe('failed-checks');
    expect(run.reopens).toHaveLength(1);
    const why =
      /MAKER reopened 0 \(Set up the package\) for this failure before \(`SyntaxError[^`]*`\) and it was not mended: it reopens nothing more for it\./;
    expect(run.error).toMatch(why);
    const said = events.find((e) => e.type === 'not-reopened');
    expect(said?.type === 'not-reopened' ? said.reason : '').toMatch(why);
  }, 60_000);

  it('stopped right after the blame vote, resumes to the same tree', async () => {
    const stopped = await greetRun(
      await tempDir(),
      (e) => e.type === 'vote-end' && e.vote === 'blame',
    );
    expect(stopped.interrupted).toBe('cancelled');
    expect(stopped.outcome.status).toBe('done');
    expect(stopped.run.reopens).toHaveLength(1);
    expect(first?.tree).toBeDefined();
    expect(stopped.tree).toBe(first?.tree);
  }, 60_000);
});
