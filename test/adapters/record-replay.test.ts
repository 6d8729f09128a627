import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiCallError } from '../../src/core/errors.js';
import { requestHash } from '../../src/adapters/replay/exchange.js';
import { RecordingModel } from '../../src/adapters/replay/recording-model.js';
import { ReplayModel } from '../../src/adapters/replay/replay-model.js';
import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
} from '../../src/ports/language-model.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** A scripted model: answers with the prompt and a call counter; fails on "fail". */
class EchoModel implements LanguageModel {
  readonly id = 'echo-1';
  calls = 0;
  generate(request: GenerateRequest): Promise<GenerateResult> {
    this.calls += 1;
    if (request.prompt === 'fail')
      return Promise.reject(new ApiCallError('echo', 'quota exhausted', { status: 429 }));
    return Promise.resolve({
      text: `${request.prompt} #${this.calls}`,
      finishReason: 'stop',
      outputTokens: 3,
      inputTokens: 5,
    });
  }
}

const ask = (prompt: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  prompt,
  temperature: 0,
  draw: 'n-0:worker:0',
  ...extra,
});

describe('RecordingModel and ReplayModel', () => {
  it('hashes content, not the abort signal', () => {
    expect(requestHash(ask('a', { signal: new AbortController().signal }))).toBe(
      requestHash(ask('a')),
    );
    expect(requestHash(ask('a', { draw: 'n-0:worker:1' }))).not.toBe(requestHash(ask('a')));
    expect(requestHash(ask('a', { temperature: 0.1 }))).not.toBe(requestHash(ask('a')));
  });

  it('replays answers in order per identical request, rethrows failures, and names a missing one', async () => {
    const dir = join(await tempDir(), 'rec');
    const inner = new EchoModel();
    const recorder = new RecordingModel(inner, dir, { secrets: ['sekret-value-1'] });
    await recorder.generate(ask('one'));
    await recorder.generate(ask('one'));
    await recorder.generate(ask('two uses sekret-value-1', { draw: 'n-1:worker:0' }));
    await expect(recorder.generate(ask('fail'))).rejects.toThrow('quota exhausted');
    const files = await readdir(dir);
    expect(files).toHaveLength(4);
    const texts = await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')));
    expect(texts.join('\n')).not.toContain('sekret-value-1');

    const replay = new ReplayModel(dir, 'echo-1');
    expect((await replay.generate(ask('one'))).text).toBe('one #1');
    expect((await replay.generate(ask('one'))).text).toBe('one #2');
    // Once the recorded answers run out, the last one is given again.
    expect((await replay.generate(ask('one'))).text).toBe('one #2');
    await expect(replay.generate(ask('fail'))).rejects.toMatchObject({
      code: 'api-call',
      status: 429,
    });
    await expect(replay.generate(ask('three', { draw: 'n-2:split:0' }))).rejects.toMatchObject({
      code: 'replay-missing',
      message: expect.stringContaining('draw n-2:split:0') as unknown,
    });
    expect(inner.calls).toBe(4);
  });

  it('appends to an existing recording (a resumed run) without overwriting it', async () => {
    const dir = join(await tempDir(), 'rec');
    await new RecordingModel(new EchoModel(), dir).generate(ask('one'));
    await new RecordingModel(new EchoModel(), dir).generate(ask('one'));
    const replay = new ReplayModel(dir);
    expect((await replay.generate(ask('one'))).text).toBe('one #1');
    expect(await readdir(dir)).toHaveLength(2);
  });
});
