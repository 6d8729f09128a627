import { fenceFor, infoFor } from '../../core/fenced-edits.js';
import type { GenerateRequest } from '../../ports/language-model.js';
import type { Rand, Slip } from './render.js';

/** The edit formats the gemini worker asks for (see `engine/llm-worker.ts`). */
export type AnswerFormat = 'json' | 'fenced';

/**
 * How often the realistic fake slips when it writes files down, per code sample, by kind. The
 * defaults give both edit formats the same share of slipped samples (10%, the `--slip` default:
 * half of it the format-independent omission, half the format's own slips), because no published
 * figure gives Gemini's rates per format; what differs is which slips each format suffers:
 * - JSON strings: Gemini over-escapes code inside JSON strings (Gemini CLI repairs its edits for
 *   it: `ensureCorrectFileContent`, `unescapeStringForGeminiBug`), either a whole file as one line
 *   of literal `\n` (`overEscaped`) or only the escapes inside string literals (`escapedLiterals`:
 *   `split('\n')` becomes `split('\\n')`, which still has real newlines). Aider's "LLMs are bad at
 *   returning code in JSON" (aider.chat, 2024-08-14) measured more syntax errors and lower pass
 *   rates with JSON-wrapped code than with markdown for every model tried.
 * - Fenced blocks: a block without its path line (`missingPath`; Aider uses its "diff-fenced"
 *   format, the path inside the fence, for Gemini, "which often fail to conform to the fencing
 *   approach" with the path above it: aider.chat/docs/more/edit-formats.html), a block never
 *   closed (`missingClose`), and, for a file that holds ``` lines, fencing it with three backticks
 *   anyway (`fenceInside`: a chance per such file, not per sample; a coin toss, for want of data).
 */
export interface SlipRates {
  readonly omission: number;
  readonly overEscaped: number;
  readonly escapedLiterals: number;
  readonly missingPath: number;
  readonly missingClose: number;
  readonly fenceInside: number;
}

export const DEFAULT_SLIP_RATES: SlipRates = {
  omission: 0.05,
  overEscaped: 0.025,
  escapedLiterals: 0.025,
  missingPath: 0.025,
  missingClose: 0.025,
  fenceInside: 0.5,
};

/** The `--slip` default the rates above are for: another `slip` scales them all. */
export const DEFAULT_SLIP = 0.1;

/** The rates for a `slip` setting (each default scaled by slip / 0.1, then `overrides`). */
export function slipRates(slip: number, overrides: Partial<SlipRates> = {}): SlipRates {
  const scale = slip / DEFAULT_SLIP;
  const scaled = Object.fromEntries(
    Object.entries(DEFAULT_SLIP_RATES).map(([k, v]) => [k, Math.min(1, v * scale)]),
  ) as unknown as SlipRates;
  return { ...scaled, ...overrides };
}

/** The per-sample slips of a format, in a fixed order (the order the sampler draws them in). */
export function slipsFor(format: AnswerFormat, rates: SlipRates): [Slip, number][] {
  return format === 'json'
    ? [
        ['over-escaped', rates.overEscaped],
        ['escaped-literals', rates.escapedLiterals],
        ['omission', rates.omission],
      ]
    : [
        ['missing-path', rates.missingPath],
        ['missing-close', rates.missingClose],
        ['omission', rates.omission],
      ];
}

/** The format a worker request asks for: JSON when its schema has `files`, fenced when its prompt says so. */
export function formatOf(request: Pick<GenerateRequest, 'prompt' | 'json'>): AnswerFormat {
  const properties = (request.json?.schema as { properties?: Record<string, unknown> } | undefined)
    ?.properties;
  if (properties !== undefined && 'files' in properties) return 'json';
  return /^File: src\/example\.js$/m.test(request.prompt) ? 'fenced' : 'json';
}

/**
 * A worker's answer in `format`, with the fenced slips applied (to the first file's block, which
 * holds the sample's code): `missing-path`, `missing-close`; and, for each file holding a ```
 * line, three backticks anyway with probability `fenceInside` (returned as the slip, if it hit).
 */
export function writeAnswer(
  format: AnswerFormat,
  answer: {
    readonly files: readonly { readonly path: string; readonly content: string }[];
    readonly summary: string;
  },
  slip: Slip,
  options: { readonly rand: Rand; readonly fenceInside: number },
): { text: string; slip: Slip } {
  if (format === 'json') return { text: JSON.stringify(answer), slip };
  let written = slip;
  const blocks = answer.files.map((f, i) => {
    const backticks = /^```/m.test(f.content);
    let fence = fenceFor(f.content);
    if (backticks && options.rand(300 + i) < options.fenceInside) {
      fence = '```';
      if (written === 'none') written = 'fence-inside';
    }
    const header = i === 0 && slip === 'missing-path' ? '' : `File: ${f.path}\n`;
    const close = i === 0 && slip === 'missing-close' ? '' : `${fence}\n`;
    return `${header}${fence}${infoFor(f.path)}\n${f.content}${f.content.endsWith('\n') ? '' : '\n'}${close}`;
  });
  const meta = `\`\`\`json\n${JSON.stringify({ summary: answer.summary })}\n\`\`\`\n`;
  return { text: [...blocks, meta].join('\n'), slip: written };
}
