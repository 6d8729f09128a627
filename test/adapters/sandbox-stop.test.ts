import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostView } from '../../src/adapters/sandbox/host-view.js';
import { launchSandbox } from '../../src/adapters/sandbox/run-sandboxed.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox } from '../helpers/settings.js';

/**
 * A sandbox stopped as it starts takes its command with it. bubblewrap ties its first process
 * (its namespace's init) to itself only once that process is set up: killed before, it leaves the
 * process behind to run the command to its end, or to wait forever holding MAKER's output open.
 * So bubblewrap reports that process's pid (`--info-fd`), and a stop that comes before the report
 * waits for it, then kills both.
 */

const tempDir = useTempDirs();
const found = await machineSandbox();
const bwrap = found?.name === 'bubblewrap' ? found : undefined;
/** A sandbox that reports its first process, fed nothing. */
const REPORTS = { reportsPid: true, feeds: [] };
const started: ReturnType<typeof launchSandbox>[] = [];
/** Processes a test left on purpose (a stand-in's first process its report never named). */
const strays: number[] = [];

afterEach(() => {
  for (const s of started.splice(0)) s.kill();
  for (const pid of strays.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

/** Whether `pid` runs (a zombie, dead but not yet reaped, does not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z /s.test(stat);
  } catch {
    return false;
  }
}

async function until(what: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !what();) {
    if (Date.now() > end) throw new Error('gave up waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A stand-in for bubblewrap: it starts its first process in a session of its own (not tied to
 * it), and reports that process's pid on descriptor 3 only once `report` exists in `dir`. The first
 * process writes its pid to `first`, then waits for `go` and writes `ran`.
 */
const STAND_IN = String.raw`
dir=$1
setsid sh -c 'echo $$ > "$1/first"; while [ ! -e "$1/go" ]; do sleep 0.05; done; echo ran > "$1/ran"' first "$dir" 3>&- &
first=$!
while [ ! -e "$dir/report" ]; do sleep 0.02; done
if [ "$2" = pid ]; then echo "{\"child-pid\": $first}" >&3; fi
exec 3>&-
while :; do sleep 1; done
`;

describe('a sandbox stopped as it starts', () => {
  it('waits for its first process to be reported, then kills it with the sandbox', async () => {
    const dir = await tempDir();
    const sandbox = launchSandbox(['sh', '-c', STAND_IN, 'stand-in', dir, 'pid'], REPORTS);
    started.push(sandbox);
    await until(() => existsSync(join(dir, 'first')));
    const first = Number(readFileSync(join(dir, 'first'), 'utf8'));
    strays.push(first);
    sandbox.kill();
    // Not killed before the report: killed now, its first process would be left running.
    await new Promise((r) => setTimeout(r, 200));
    expect(sandbox.child.exitCode).toBeNull();
    expect(sandbox.child.signalCode).toBeNull();
    const exited = once(sandbox.child, 'exit');
    await writeFile(join(dir, 'report'), '');
    await exited;
    expect(sandbox.firstPid()).toBe(first);
    await until(() => !alive(first));
    await writeFile(join(dir, 'go'), '');
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });

  it('is killed at once when its report closes without a pid (it made no first process)', async () => {
    const dir = await tempDir();
    const sandbox = launchSandbox(['sh', '-c', STAND_IN, 'stand-in', dir, 'none'], REPORTS);
    started.push(sandbox);
    await until(() => existsSync(join(dir, 'first')));
    strays.push(Number(readFileSync(join(dir, 'first'), 'utf8')));
    sandbox.kill();
    const exited = once(sandbox.child, 'exit');
    await writeFile(join(dir, 'report'), '');
    await exited;
    expect(sandbox.child.signalCode).toBe('SIGKILL');
    expect(sandbox.firstPid()).toBeUndefined();
  });

  it('is killed after a bounded wait when it never reports', async () => {
    const dir = await tempDir();
    const sandbox = launchSandbox(['sh', '-c', STAND_IN, 'stand-in', dir, 'pid'], REPORTS);
    started.push(sandbox);
    await until(() => existsSync(join(dir, 'first')));
    strays.push(Number(readFileSync(join(dir, 'first'), 'utf8')));
    const exited = once(sandbox.child, 'exit');
    sandbox.kill();
    await exited;
    expect(sandbox.child.signalCode).toBe('SIGKILL');
  });
});

describe.skipIf(bwrap === undefined)('bubblewrap', () => {
  it('reports the init of its process namespace, which a stop kills', async () => {
    const dir = await tempDir();
    const view = await hostView(process.env['PATH'] ?? '', homedir());
    const argv = bwrap!.argv(
      {
        mounts: [...view.mounts, { kind: 'bind', source: dir, target: dir }],
        env: { PATH: view.path },
        cwd: '/',
        argv: ['sh', '-c', `echo $$ > ${dir}/pid; exec sleep 60`],
      },
      dir,
      { info: 3 },
    );
    const sandbox = launchSandbox(argv, REPORTS);
    started.push(sandbox);
    await until(
      () => existsSync(join(dir, 'pid')) && readFileSync(join(dir, 'pid'), 'utf8') !== '',
    );
    const first = sandbox.firstPid();
    expect(first).toBeGreaterThan(1);
    const status = readFileSync(`/proc/${first}/status`, 'utf8');
    // Its pid outside, then 1 in the namespace it made.
    expect(/^NSpid:\s+(\d+)\s+(\d+)$/m.exec(status)?.slice(1)).toEqual([String(first), '1']);
    const exited = once(sandbox.child, 'exit');
    sandbox.kill();
    await exited;
    await until(() => !alive(first!));
  });
});
