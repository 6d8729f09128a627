import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { bundleScript } from '../helpers/bundle.js';

const tempDir = useTempDirs();

describe('a process group started for gemini', () => {
  it('holds the event loop until its group has ended: a process awaiting only its exit finishes (not exit 13)', async () => {
    // Found by `maker calibrate` through Gemini CLI, whose last await is the model's close: its
    // process ended with code 13 (an unsettled await) and said nothing. Failed on 79cd09d every time.
    const bundle = join(await tempDir(), 'group-child.mjs');
    await bundleScript(
      `import { spawnGroup } from ${JSON.stringify(join(process.cwd(), 'src/adapters/gemini-cli/process-group.ts'))};
for (let i = 0; i < 5; i++) {
  const child = spawnGroup('/bin/sh', ['-c', 'exit 3'], { cwd: process.cwd(), env: { PATH: process.env.PATH } });
  child.stdin.end();
  const { code } = await child.exited;
  if (code !== 3) throw new Error('exit ' + code);
}
process.stdout.write('done');`,
      bundle,
    );
    const ran = spawnSync(process.execPath, [bundle], { encoding: 'utf8', timeout: 30_000 });
    expect({ status: ran.status, stdout: ran.stdout }, ran.stderr).toEqual({
      status: 0,
      stdout: 'done',
    });
  });
});
