import { MODEL_ACCESSES } from '../../model-access.js';
import { defineCommand, option } from '../define.js';
import { oneOf } from '../values.js';
import { jsonFlag } from './common.js';

export const doctorCommand = defineCommand({
  name: 'doctor',
  summary: 'say what a run here would use (model access) and why, changing nothing',
  description: `Checks this environment, changing nothing and printing no secret.

Model access: a run reaches Gemini with an API key (GEMINI_API_KEY or
GOOGLE_API_KEY), else Vertex AI (GOOGLE_GENAI_USE_VERTEXAI=true with
GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION), else your own Gemini CLI
(\`gemini\` on the PATH, signed in). A \`gemini\` found is checked as a run
checks it: its sign-in, without a model request and without a prompt, within
MAKER_GEMINI_START_S seconds (default 30). When none is available, the ways to
make one so are listed.

Checks: the sandbox checks would run in, bubblewrap else util-linux unshare,
each tried as a run tries it (MAKER_SANDBOX=bubblewrap|unshare|none narrows the
choice); with none, results are unverified.`,
  options: {
    modelAccess: option(
      '--model-access <access>',
      'as `maker run --model-access`: say whether this one would be used',
      oneOf(MODEL_ACCESSES),
    ),
    json: jsonFlag,
  },
  exits: [
    [0, 'checked'],
    [2, 'usage error'],
  ],
  run: async (input, ctx): Promise<number> => (await import('./doctor-run.js')).run(input, ctx),
});
