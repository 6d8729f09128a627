import type { FakeGeminiReply, FakeGeminiRequest } from '../../src/offline/fake-gemini.js';
import { atRoot, ballotOptions, isIntegration, isTask, promptRole } from './prompts.js';

/** The two versions of the integrated file the scripted model writes (first draw, later draws). */
export const INTEGRATED = [
  'def greet():\n    return "hello"\n\n\ndef farewell():\n    return "bye"\n\n\nVARIANT = "integration v1"\n',
  'def greet():\n    return "hello"\n\n\ndef farewell():\n    return "bye"\n\n\nVARIANT = "integration v2"\n',
] as const;

/** Integration answers so far: they alternate between two different programs, so no class leads. */
let integrations = 0;

/**
 * A scripted model for a run whose two subtasks both create `app.py`, so that merging the second
 * conflicts. Its integration answers alternate between two programs that differ in what they do
 * (a recording keeps each draw's answer, so it replays).
 * Its reviewer is strict, as a real one is: an integration judged against any task but the
 * integration's ("unrelated changes") is confidently suspect. Its judges prefer the later draws.
 */
export function conflictModel(request: FakeGeminiRequest): FakeGeminiReply {
  const p = request.prompt;
  const role = promptRole(request);
  // The acceptance-test role (checks on): no behaviour to test here, the planned checks decide.
  // The probe role (checks on): nothing to probe here, candidates vote by their text.
  if (role === 'probe')
    return { text: JSON.stringify({ probe: null, reason: 'nothing to probe' }) };
  if (role === 'test')
    return { text: JSON.stringify({ test: null, reason: 'no behaviour to test' }) };
  if (role === 'minimal')
    return {
      text: JSON.stringify({ minimal: !atRoot(p), reason: 'x' }),
    };
  if (role === 'split')
    return {
      text: JSON.stringify({
        subtasks: [
          {
            title: 'Add the greeting',
            description: 'A greet() function in app.py returning "hello".',
            acceptance: ['greet() returns "hello"'],
            files: ['app.py'],
            dependsOn: [],
            check: 'test -s app.py',
          },
          {
            title: 'Add the farewell',
            description: 'A farewell() function in app.py returning "bye".',
            acceptance: ['farewell() returns "bye"'],
            files: ['app.py'],
            dependsOn: [],
            check: 'test -s app.py',
          },
        ],
        ambiguity: null,
      }),
    };
  if (role === 'ballot' || role === 'blame') {
    const options = ballotOptions(p);
    const v2 = options.find((o) => o.content.includes('integration v2'));
    return { text: JSON.stringify({ choice: v2?.label ?? options[0]?.label ?? 'A', reason: 'x' }) };
  }
  if (role === 'review') {
    const integration = p.includes('integration v');
    const onTask = isIntegration(p);
    return {
      text: JSON.stringify(
        integration && !onTask
          ? { verdict: 'suspect', confidence: 0.95, reason: 'unrelated changes to app.py' }
          : { verdict: 'ok', confidence: 0.9, reason: 'fine' },
      ),
    };
  }
  if (role === 'worker') {
    const content = isIntegration(p)
      ? INTEGRATED[integrations++ % 2]
      : isTask(p, 'Add the greeting')
        ? 'def greet():\n    return "hello"\n'
        : 'def farewell():\n    return "bye"\n';
    return { text: JSON.stringify({ files: [{ path: 'app.py', content }], summary: 'app.py' }) };
  }
  return { status: 400, message: `unexpected prompt: ${p.slice(0, 80)}` };
}
