import type { FakeGeminiReply, FakeGeminiRequest } from '../../src/testing/fake-gemini.js';

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
  // The acceptance-test role (checks on): no behaviour to test here, the planned checks decide.
  // The probe role (checks on): nothing to probe here, candidates vote by their text.
  if (p.includes('write one probe'))
    return { text: JSON.stringify({ probe: null, reason: 'nothing to probe' }) };
  if (p.includes('write one acceptance test'))
    return { text: JSON.stringify({ test: null, reason: 'no behaviour to test' }) };
  if (p.includes('Is this task minimal'))
    return {
      text: JSON.stringify({ minimal: !p.includes('Decomposition depth: 0'), reason: 'x' }),
    };
  if (p.includes('Split this task'))
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
  if (p.includes('"choice"')) {
    const options = [
      ...p.matchAll(/=== Option ([A-Z]) ===\n([\s\S]*?)(?==== Option |\nReply as JSON)/g),
    ];
    const v2 = options.find((o) => (o[2] ?? '').includes('integration v2'));
    return { text: JSON.stringify({ choice: v2?.[1] ?? options[0]?.[1] ?? 'A', reason: 'x' }) };
  }
  if (p.includes('A proposal for this task')) {
    const integration = p.includes('integration v');
    const onTask = /^Task: Integrate /m.test(p);
    return {
      text: JSON.stringify(
        integration && !onTask
          ? { verdict: 'suspect', confidence: 0.95, reason: 'unrelated changes to app.py' }
          : { verdict: 'ok', confidence: 0.9, reason: 'fine' },
      ),
    };
  }
  if (p.includes('Reply as JSON {"files"')) {
    const content = /^Task: Integrate /m.test(p)
      ? INTEGRATED[integrations++ % 2]
      : p.includes('Task: Add the greeting')
        ? 'def greet():\n    return "hello"\n'
        : 'def farewell():\n    return "bye"\n';
    return { text: JSON.stringify({ files: [{ path: 'app.py', content }], summary: 'app.py' }) };
  }
  return { status: 400, message: `unexpected prompt: ${p.slice(0, 80)}` };
}
