import { describe, expect, it } from 'vitest';
import { chooseSettings, readSettings, withGitHub } from '../../src/app/settings.js';
import { accessProblems, chooseAccess } from '../../src/app/wiring/model-access.js';

const KEY = ['AIza', 'S'.repeat(35)].join('');

describe('the settings a use case takes', () => {
  it('are the environment read once into typed values', () => {
    const settings = readSettings({
      GEMINI_API_KEY: KEY,
      GOOGLE_GENAI_USE_VERTEXAI: 'true',
      GOOGLE_CLOUD_PROJECT: 'proj',
      GOOGLE_CLOUD_LOCATION: 'europe-west4',
      MAKER_MODEL_ACCESS: 'vertex',
      MAKER_RECORD: '/tmp/rec',
      MAKER_SANDBOX: 'unshare',
      MAKER_DAILY_REQUESTS: '250',
      PATH: '',
    });
    expect(settings.model.access).toEqual({
      key: { name: 'GEMINI_API_KEY', value: KEY },
      vertex: { project: 'proj', location: 'europe-west4' },
      vertexAsked: true,
      gemini: undefined,
      inGeminiCli: false,
      asked: 'vertex',
    });
    expect(settings.model.record).toBe('/tmp/rec');
    expect(settings.model.replay).toBe('');
    expect(settings.sandbox).toEqual({ path: '', choice: 'unshare' });
    expect(settings.dailyRequests).toBe(250);
    expect(settings.secrets).toEqual([KEY]);
    expect(chooseAccess(settings.model.access)?.access).toBe('vertex');
  });

  it('take an unexpanded reference (an unset Gemini CLI setting) as unset, and name bad values', () => {
    const settings = readSettings({
      GEMINI_API_KEY: '${GEMINI_API_KEY}',
      MAKER_DAILY_REQUESTS: 'lots',
      MAKER_MODEL_SILENCE_S: 'soon',
      PATH: '',
    });
    expect(settings.model.access.key).toBeUndefined();
    expect(settings.secrets).toEqual([]);
    expect(settings.dailyRequests).toBeUndefined();
    expect(settings.model.waitProblems).toEqual([
      'MAKER_MODEL_SILENCE_S=soon is not a number of seconds (1 to 86400).',
    ]);
    expect(accessProblems(settings.model.access, 'a test')[0]).toMatch(
      /^GEMINI_API_KEY is not set, .*: a test\. Any one of these works:/,
    );
  });

  it("take a surface's choices over them without changing the settings they came from", () => {
    const read = readSettings({ GEMINI_API_KEY: KEY, PATH: '' });
    const chosen = chooseSettings(read, { modelAccess: 'gemini-cli', replay: '/rec' });
    expect(chosen.model.access.asked).toBe('gemini-cli');
    expect(chosen.model.replay).toBe('/rec');
    expect(read.model.access.asked).toBe('');
    expect(read.model.replay).toBe('');
    // Asked for by name and not there: refused as such, not quietly the key.
    expect(chooseAccess(chosen.model.access)).toBeUndefined();
    expect(accessProblems(chosen.model.access, '')).toEqual([
      expect.stringMatching(/^--model-access gemini-cli is not available: no `gemini` command/),
    ]);
    expect(chooseSettings(read, {})).toBe(read);
  });

  it('over a served GitHub, redact its token too', () => {
    const read = readSettings({ GEMINI_API_KEY: KEY });
    const served = withGitHub(read, { apiUrl: 'http://127.0.0.1:1', token: 'ghp_x1' });
    expect(served.github).toEqual({ apiUrl: 'http://127.0.0.1:1', token: 'ghp_x1' });
    expect(served.secrets).toEqual([KEY, 'ghp_x1']);
    expect(read.github).toEqual({ apiUrl: '', token: '' });
    // The API a start recorded, over the environment's, keeps the environment's token.
    const recorded = withGitHub(readSettings({ GITHUB_TOKEN: 'ghp_env1' }), {
      apiUrl: 'https://ghe.example/api/v3',
    });
    expect(recorded.github).toEqual({ apiUrl: 'https://ghe.example/api/v3', token: 'ghp_env1' });
    expect(recorded.secrets).toEqual(['ghp_env1']);
    // A field left undefined keeps the settings' own (a spread would have erased it).
    expect(withGitHub(recorded, { apiUrl: undefined, token: undefined }).github).toEqual(
      recorded.github,
    );
  });
});
