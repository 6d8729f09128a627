import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processesNaming, until } from '../helpers/processes.js';
import { text, useMcpClients } from '../helpers/mcp.js';
import { alive, stubGemini, untilLogged } from '../helpers/stub-gemini.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const connect = useMcpClients();
const linux = existsSync('/proc/self/stat');

/** A PATH with the stub `gemini` and git, nothing else. */
async function path(stubBin: string): Promise<string> {
  const bin = join(await tempDir(), 'bin');
  await mkdir(bin);
  const git = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await symlink(git, join(bin, 'git'));
  return `${stubBin}:${bin}`;
}

describe.runIf(linux)('maker_start cancelled during its sign-in check', () => {
  it('a cancelled request (notifications/cancelled) ends the check’s gemini and what it started at once, creates nothing, and frees the repository for the next start', async () => {
    const stub = await stubGemini(await tempDir(), { hang: true, grandchild: true });
    const workspace = await tempDir();
    const tmp = await tempDir();
    const { client, call } = await connect(workspace, {
      PATH: await path(stub.bin),
      HOME: await tempDir(),
      TMPDIR: tmp,
      // Far longer than the test: only the cancellation can end the check.
      MAKER_GEMINI_START_S: '600',
    });
    const cancel = new AbortController();
    const started = client.callTool(
      { name: 'maker_start', arguments: { idea: 'a todo list CLI', worker: 'gemini' } },
      undefined,
      { signal: cancel.signal },
    );
    started.catch(() => undefined);
    // The sign-in check runs (and hangs): its gemini started a process of its own.
    const log = await untilLogged(stub, (l) => l.some((e) => e.grandchild !== undefined), 60_000);
    const grandchildren = log.flatMap((e) => (e.grandchild === undefined ? [] : [e.grandchild]));
    expect(processesNaming(stub.bin).length).toBeGreaterThan(0);
    const sent = Date.now();
    cancel.abort(new Error('the person pressed Esc'));
    await expect(started).rejects.toThrow(/the person pressed Esc/);
    expect(
      await until(
        () => processesNaming(stub.bin).length === 0 && grandchildren.every((pid) => !alive(pid)),
        1000,
      ),
      `left: ${processesNaming(stub.bin).join(', ')}`,
    ).toBe(true);
    expect(Date.now() - sent).toBeLessThan(1000);
    // Nothing created: no state file, no repository, no private directory of the check left.
    expect(await readdir(workspace)).toEqual([]);
    expect(
      await until(() => readdirSync(tmp).length === 0, 3000),
      `left: ${readdirSync(tmp).join(', ')}`,
    ).toBe(true);
    // The cancelled start ends on the server too (a moment after the client stopped waiting): the
    // next start of the same repository is answered, not refused as "a start is under way".
    await writeFile(join(stub.bin, 'stub.json'), JSON.stringify({ exit: 41 }));
    let next = await call('maker_start', { idea: 'a todo list CLI', worker: 'gemini' });
    for (
      const end = Date.now() + 2000;
      /A maker_start in .* is under way/.test(text(next)) && Date.now() < end;
    )
      next = await call('maker_start', { idea: 'a todo list CLI', worker: 'gemini' });
    expect(next.isError).toBe(true);
    expect(text(next)).toMatch(/run `gemini` once in a terminal and choose Login with Google/);
    expect(await readdir(workspace)).toEqual([]);
  }, 90_000);
});
