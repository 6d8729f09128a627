import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { geminiBinary } from './gemini-binary.js';

const tempDir = useTempDirs();

/** npm pointed at a port on this machine where nothing listens: a registry that cannot be reached. */
const offline = () => ({
  ...process.env,
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_cache: '',
  MAKER_E2E: '',
});

describe('the gemini binary for the end-to-end tests', () => {
  it('without the registry, gives the reason to skip, saying what is needed', async () => {
    const cache = join(await tempDir(), 'gemini-cli');
    const env = offline();
    env['npm_config_cache'] = join(cache, '..', 'npm-cache');
    const result = await geminiBinary({ cache, version: '0.61.0', env });
    expect(result).toEqual({
      skip: expect.stringMatching(/installed once from the npm registry/) as unknown,
    });
    expect('skip' in result && result.skip).toMatch(/set MAKER_E2E=1 to make this a failure/);
  }, 60_000);

  it('with MAKER_E2E=1, fails instead of skipping', async () => {
    const cache = join(await tempDir(), 'gemini-cli');
    const env = { ...offline(), MAKER_E2E: '1', npm_config_cache: join(cache, '..', 'npm-cache') };
    await expect(geminiBinary({ cache, version: '0.61.0', env })).rejects.toThrow(
      /MAKER_E2E=1 requires the end-to-end tests/,
    );
  }, 60_000);
});
