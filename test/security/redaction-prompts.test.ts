import { describe, expect, it } from 'vitest';
import { geminiModel } from '../../src/app/workers/gemini-model.js';
import { useFakeGemini } from '../helpers/gemini-engine.js';
import { readSettings } from '../../src/app/settings.js';

/**
 * The prompt boundary, behind the redaction of check output where it enters MAKER: the model a run
 * is given (`geminiModel`, as the surfaces make it) sends no secret value of the environment it
 * was made in, in any encoding, whatever text carries one.
 */
const startGemini = useFakeGemini();
const VALUE = ['pw', 'Qx7', 'vault', 'K9m2'].join('-'); // no known format: only its value finds it
const GEMINI_KEY = ['AIza', 'P'.repeat(35)].join('');

describe('every prompt to the run’s model', () => {
  it("loses the environment's secret values (and MAKER's keys), also Base64-encoded", async () => {
    const fake = await startGemini(() => ({ text: '{"ok": true}' }));
    const model = geminiModel(
      { model: 'gemini-2.5-flash', modelAccess: 'key' },
      readSettings({
        GEMINI_API_KEY: GEMINI_KEY,
        GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
        VAULT_PASSWORD: VALUE,
        EDITOR: 'a-long-enough-editor-name',
      }),
    );
    await model.generate({
      system: `Never say ${VALUE}.`,
      prompt: `A log: login ${VALUE}; basic ${Buffer.from(`u:${VALUE}`).toString('base64')}; key ${GEMINI_KEY}; editor a-long-enough-editor-name`,
      temperature: 0,
    });
    const request = fake.requests[0];
    const sent = `${request?.system ?? ''}\n${request?.prompt ?? ''}`;
    // Failed at main: the value went out as it was, and Base64-encoded.
    expect(sent).not.toContain(VALUE);
    expect(sent).not.toContain(Buffer.from(`u:${VALUE}`).toString('base64'));
    expect(sent).not.toContain(GEMINI_KEY);
    expect(sent).toContain('login [REDACTED:$VAULT_PASSWORD]');
    expect(sent).toContain('editor a-long-enough-editor-name'); // not a secret's name
  });
});
