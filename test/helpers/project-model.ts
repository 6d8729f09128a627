import type { FakeGeminiReply, FakeGeminiRequest } from '../../src/testing/fake-gemini.js';

/** A scripted model playing every MAKER role, recognised by the prompt it gets. */
export function projectModel(request: FakeGeminiRequest, index: number): FakeGeminiReply {
  const p = request.prompt;
  if (p.includes('Is this task minimal'))
    return {
      text: JSON.stringify({ minimal: !p.includes('Decomposition depth: 0'), reason: 'x' }),
    };
  if (p.includes('Split this task'))
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
  if (p.includes('write one probe'))
    return { text: JSON.stringify({ probe: null, reason: 'nothing to probe' }) };
  if (p.includes('write one acceptance test'))
    return { text: JSON.stringify({ test: null, reason: 'no behaviour to test' }) };
  if (p.includes('"choice"')) return { text: JSON.stringify({ choice: 'A', reason: 'x' }) };
  if (p.includes('A proposal for this task'))
    return { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) };
  if (p.includes('Reply as JSON {"files"')) {
    // Every fourth worker answer is malformed or cut off: those are red-flagged and replaced.
    if (index % 4 === 3)
      return {
        text: '{"files": [{"path": "src/convert.py", "content": "impo',
        finishReason: 'MAX_TOKENS',
      };
    const converter = p.includes('Task: Write the converter');
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
