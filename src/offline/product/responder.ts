import type { FakeGeminiResponder } from '../fake-gemini.js';
import { UnrecognisedPromptError } from './prompt-kinds.js';
import type { RealisticModel } from './realistic-model.js';

/**
 * The realistic fake behind the fake Gemini server (`startFakeGemini(realisticResponder(model))`),
 * so the real @google/genai client path can be run against it: the schema is read from the
 * request's `responseJsonSchema`, and a prompt it cannot place is answered 400 with the reason
 * (a 400 is not retried: the run stops, naming it).
 */
export function realisticResponder(model: RealisticModel): FakeGeminiResponder {
  return (request) => {
    const config = (request.body as { generationConfig?: Record<string, unknown> } | null)
      ?.generationConfig;
    const schema = config?.['responseJsonSchema'] ?? config?.['responseSchema'];
    try {
      return {
        text: model.answer({
          prompt: request.prompt,
          temperature: request.temperature ?? 1,
          ...(typeof schema === 'object' && schema !== null
            ? { json: { schema: schema as Record<string, unknown> } }
            : {}),
        }),
      };
    } catch (error) {
      if (error instanceof UnrecognisedPromptError) return { status: 400, message: error.message };
      throw error;
    }
  };
}
