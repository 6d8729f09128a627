import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);

/** npm 11.16+ lists dependencies whose install scripts package.json's allowScripts does not cover. */
async function pending(): Promise<string[] | undefined> {
  try {
    const { stdout } = await exec('npm', ['install-scripts', 'ls', '--json'], {
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    const listed = JSON.parse(stdout) as { allowScripts?: { name: string }[] };
    return (listed.allowScripts ?? []).map((p) => p.name);
  } catch (error) {
    // An npm without allowScripts (before 11.16): nothing to review, nothing warned of.
    if (/Unknown command/i.test((error as { stderr?: string }).stderr ?? '')) return undefined;
    throw error;
  }
}

describe('npm ci on a fresh clone', () => {
  it('warns of no dependency install script left to review (package.json decides each)', async () => {
    const names = await pending();
    if (names === undefined) return;
    expect(names).toEqual([]);
  }, 30_000);
});
