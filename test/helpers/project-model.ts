import type { FakeGeminiReply, FakeGeminiRequest } from '../../src/offline/fake-gemini.js';
import { atRoot, isTask, promptRole } from './prompts.js';

/** A scripted model playing every MAKER role, recognised by the prompt it gets. */
export function projectModel(request: FakeGeminiRequest, index: number): FakeGeminiReply {
  const p = request.prompt;
  const role = promptRole(request);
  if (role === 'minimal')
    return {
      text: JSON.stringify({ minimal: !atRoot(p), reason: 'x' }),
    };
  if (role === 'split')
    return {
      text: JSON.stringify({
        subtasks: [
          {
            title: 'Write the converter',
            description: 'A Python script that converts CSV to JSON.',
            acceptance: ['converts'],
            files: ['src/convert.py'],
            dependsOn: [],
            check: 'test -s src/convert.py',
          },
          {
            title: 'Write the README',
            description: 'Explain usage.',
            acceptance: ['documents usage'],
            files: ['README.md'],
            dependsOn: [0],
            check: 'test -s README.md',
          },
        ],
        ambiguity: null,
      }),
    };
  // The acceptance-test role: a README and a converter checked by `test -s` state no behaviour here.
  // The probe role (checks on): nothing to probe here, candidates vote by their text.
  if (role === 'probe')
    return { text: JSON.stringify({ probe: null, reason: 'nothing to probe' }) };
  if (role === 'test')
    return { text: JSON.stringify({ test: null, reason: 'no behaviour to test' }) };
  if (role === 'ballot' || role === 'blame')
    return { text: JSON.stringify({ choice: 'A', reason: 'x' }) };
  if (role === 'review')
    return { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) };
  if (role === 'worker') {
    // Every fourth worker answer is malformed or cut off: those are red-flagged and replaced.
    if (index % 4 === 3)
      return {
        text: '{"files": [{"path": "src/convert.py", "content": "impo',
        finishReason: 'MAX_TOKENS',
      };
    const converter = isTask(p, 'Write the converter');
    return {
      text: JSON.stringify({
        files: [
          converter
            ? {
                path: 'src/convert.py',
                content:
                  'import csv, json, sys\nprint(json.dumps(list(csv.DictReader(sys.stdin))))\n',
              }
            : { path: 'README.md', content: '# csv2json\n\n`python src/convert.py < in.csv`\n' },
        ],
        summary: converter ? 'Add the converter' : 'Document usage',
      }),
    };
  }
  return { status: 400, message: `unexpected prompt: ${p.slice(0, 80)}` };
}
