import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AbortedError, MakerError } from '../../src/core/errors.js';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { newNode } from '../../src/core/tree/nodes.js';
import type { Run } from '../../src/core/tree/schema.js';
import { codeCandidate } from '../../src/engine/leaf/candidate.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { RunContext } from '../../src/engine/run/run-context.js';
import { sandboxProblems } from '../../src/app/start/preflight.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox, workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const sandbox = await machineSandbox();

describe.skipIf(sandbox === undefined)('checks run sandboxed', () => {
  async function candidateWithCheck(
    check: string,
    path = 'src/a.txt',
    signal = new AbortController().signal,
  ) {
    const dir = await tempDir();
    const ws = await openWorkspace(dir, true, workspaceSettings({}));
    const base = (await ws.resolve('main')) as string;
    const node = newNode('0', null, 0, 0, {
      title: 'Add a file',
      description: 'Add src/a.txt.',
      acceptance: [],
      files: ['src/'],
      dependsOn: [],
      check,
    });
    const run: Run = {
      id: 'r-check',
      idea: 'x',
      createdAt: new Date(0).toISOString(),
      status: 'running',
      config: { ...baseConfig, runChecks: true },
      baseCommit: base,
      rootId: '0',
      nodes: { '0': node },
      questions: [],
      eventSeq: 0,
    };
    const ctx: RunContext = {
      run,
      workspace: ws,
      checks: ws,
      landing: ws,
      planner: new SimPlanner({ seed: 1 }),
      worker: {
        id: 'scripted',
        run: () => Promise.resolve({ ok: true, edits: [{ path, content: 'a\n' }] }),
      },
      signal,
      now: () => new Date(0),
      secrets: [],
      save: () => Promise.resolve(),
      emit: () => undefined,
      paid: (work) => work(),
      services: {
        reserveSession: () => Promise.resolve({ ok: true }),
        wait: () => () => undefined,
      },
      publish: () => undefined,
      checkpoint: () => Promise.resolve(),
      ask: () => Promise.reject(new Error('no questions')),
    };
    return codeCandidate(ctx, node, { context: {} as never, baseCommit: base, branch: 'b' }, 0, [
      'src/',
    ]);
  }

  it('records a check that passes, on the candidate', async () => {
    const result = await candidateWithCheck('test -f src/a.txt && echo fine');
    expect(result).toMatchObject({
      ok: true,
      check: { command: 'test -f src/a.txt && echo fine', ok: true, output: 'fine\n' },
    });
  });

  it('fails and flags a check that reaches for the network, which it cannot', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits += 1;
      res.end('reached');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const script = `require('http').get('http://127.0.0.1:${port}/', (r) => process.exit(0)).on('error', () => process.exit(1))`;
      const result = await candidateWithCheck(`"${process.execPath}" -e "${script}"`);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.flags.map((f) => f.rule)).toEqual(['check-failed']);
      expect(hits).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('fails and flags a check that writes outside its checkout, which it cannot', async () => {
    // Outside /tmp and inside it (the sandbox has a private /tmp): neither place exists in the
    // sandbox, whose view holds nothing of the host but the system and the toolchains (read-only).
    const inTmp = (path: string) => path === '/tmp' || path.startsWith('/tmp/');
    const cache = inTmp(process.cwd())
      ? join(homedir(), '.cache')
      : join(process.cwd(), 'node_modules', '.cache');
    expect(inTmp(cache)).toBe(false);
    await mkdir(cache, { recursive: true });
    const persistent = await mkdtemp(join(cache, 'maker-outside-'));
    try {
      for (const [outside, why] of [
        [persistent, /nonexistent|No such file/],
        ['/usr/local', /Read-only file system/],
        [await tempDir(), /nonexistent|No such file/],
      ] as const) {
        const result = await candidateWithCheck(`echo pwned > ${outside}/pwned`);
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.flags[0]?.message).toMatch(why);
        expect(existsSync(join(outside, 'pwned'))).toBe(false);
      }
    } finally {
      await rm(persistent, { recursive: true, force: true });
    }
  });

  it('flags a candidate whose tree cannot be checked out for its check, instead of failing the run', async () => {
    // 4,096 bytes: a path git holds, but no file system can name (PATH_MAX counts the NUL).
    const dirs = `src/${Array<string>(16).fill('d'.repeat(250)).join('/')}/`;
    const path = dirs + 'f'.repeat(4096 - dirs.length);
    const result = await candidateWithCheck('true', path);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.flags[0]?.message).toMatch(/could not be checked out to run it$/);
  });

  it("checks the whole tree in a repository with a sparse checkout (the person's setting is theirs, not the check's)", async () => {
    const dir = await tempDir();
    const ws = await openWorkspace(dir, true, workspaceSettings({}));
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        encoding: 'utf8',
      });
    await writeFile(join(dir, 'a.txt'), 'in the cone\n');
    await writeFile(join(dir, 'b.txt'), 'outside it\n');
    git('add', 'a.txt', 'b.txt');
    git('commit', '-q', '-m', 'two files');
    git('config', 'core.sparseCheckout', 'true');
    await writeFile(join(dir, '.git', 'info', 'sparse-checkout'), '/a.txt\n');
    const tree = git('rev-parse', 'HEAD^{tree}').trim();
    const result = await ws.runCheck(tree, 'cat a.txt b.txt', 30_000);
    expect(result.output).toMatch(/in the cone\noutside it/);
    expect(result.ok).toBe(true);
  });

  it('stops a check under way when the run is cancelled, and flags nothing for it', async () => {
    const controller = new AbortController();
    // Cancelled while the check runs: it is killed, and the candidate is not judged by it.
    const cancel = setTimeout(() => controller.abort(new Error('Interrupted (Ctrl-C).')), 300);
    try {
      await expect(candidateWithCheck('sleep 60', 'src/a.txt', controller.signal)).rejects.toThrow(
        AbortedError,
      );
    } finally {
      clearTimeout(cancel);
    }
  }, 20_000);

  it('runs the overall check on the result before the veto, and shows it there', async () => {
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true, workspaceSettings({}));
    const sim = { seed: 3, depth: 1 };
    const engine = new MakerEngine({
      workspace,
      roles: { planner: new SimPlanner(sim), worker: new SimWorker(sim) },
      store: makerStateFile(dir),
    });
    const runId = await engine.create(
      'a checked idea',
      { ...baseConfig, maxDepth: 1, hitl: 'defer' },
      { check: 'ls src && echo overall-ok' },
    );
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('awaiting-human');
    const veto = outcome.pending.find((q) => q.id === 'q-root-veto');
    expect(veto?.prompt).toMatch(
      /Verified: every check ran in a sandbox on the result and passed \(1 ran, 1 passed, 0 failed\)\./,
    );
    expect((await engine.getRun(runId)).finalCheck).toMatchObject({ ok: true });
  });
});

describe('without a sandbox', () => {
  it('refuses checks before anything runs, saying how to get one', async () => {
    const bin = await tempDir();
    for (const tool of ['git', 'sh', 'tar'])
      await symlink(
        execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(),
        join(bin, tool),
      );
    expect(await sandboxProblems({ runChecks: true }, { path: bin, choice: undefined })).toEqual([
      expect.stringMatching(
        /only inside a sandbox.*apt-get install bubblewrap.*or run without --run-checks/,
      ),
    ]);
    expect(await sandboxProblems({ check: 'true' }, { path: bin, choice: undefined })).toEqual([
      expect.stringMatching(/bubblewrap/),
    ]);
    expect(await sandboxProblems({}, { path: bin, choice: undefined })).toEqual([]);
    // A MAKER_SANDBOX that names no choice is refused whatever is wanted, not taken for "any".
    for (const choice of ['bubblewarp', 'None'])
      expect(await sandboxProblems({}, { path: bin, choice })).toEqual([
        expect.stringMatching(new RegExp(`^MAKER_SANDBOX=${choice} is not a sandbox MAKER knows`)),
      ]);
    for (const choice of ['none', 'unshare', 'bubblewrap'])
      expect(await sandboxProblems({}, { path: bin, choice })).toEqual([]);
  });
});

describe.skipIf(sandbox === undefined)("a check's checkout when its git cannot run", () => {
  it('is a transport failure (git-transport, retryable), never the tree’s fault; with the helper back, it runs', async () => {
    const dir = await tempDir();
    let kill = false;
    const ws = await GitWorkspace.open(dir, {
      create: true,
      // As the out-of-memory killer would: the helper that starts git dies at every request.
      launcherSeam: (_, helper) => {
        if (kill) helper.kill('SIGKILL');
      },
    });
    try {
      const tree = execFileSync('git', ['-C', dir, 'rev-parse', 'main^{tree}'], {
        encoding: 'utf8',
      }).trim();
      expect(tree).toMatch(/^[0-9a-f]{40}$/);
      kill = true;
      const failed = ws.runCheck(tree, 'true', 30_000);
      await expect(failed).rejects.toThrow(/^git read-tree did not run: the git launcher stopped/);
      await expect(failed).rejects.toMatchObject({ code: 'git-transport', isRetryable: true });
      await expect(failed).rejects.toBeInstanceOf(MakerError);
      kill = false;
      await expect(ws.runCheck(tree, 'true', 30_000)).resolves.toMatchObject({ ok: true });
    } finally {
      await ws.close();
    }
  });
});
