import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnMaker } from '../helpers/cli.js';

/**
 * `maker fake-github &` in a script has its input closed (or from /dev/null): the fake must keep
 * serving for the script's next step, and stop on Ctrl-C or SIGTERM (issue 28, item 3).
 */
describe('maker fake-github started with its input closed', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });

  it('keeps serving after its input ends, and SIGTERM stops it with status 0', async () => {
    const run = spawnMaker(['fake-github'], {
      env: { MAKER_FAKE_GITHUB_TOKEN: 't-lifetime' },
      stdin: true,
    });
    const proc = run.child;
    child = proc;
    let exitedEarly = false;
    proc.on('exit', () => (exitedEarly = true));
    const [line] = (await once(createInterface({ input: proc.stdout }), 'line')) as [string];
    const { baseUrl } = JSON.parse(line) as { baseUrl: string };
    // Close its input as `&` or `< /dev/null` does, then use it: two requests, each after the other.
    run.stdin?.end();
    for (let i = 0; i < 2; i++) {
      const answer = await fetch(`${baseUrl}/user`, {
        headers: { authorization: 'Bearer t-lifetime' },
      });
      expect(answer.status).toBe(200);
    }
    expect(exitedEarly).toBe(false);
    const exited = once(proc, 'exit');
    proc.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
  });
});
