import { MODEL_ACCESSES } from '../../../app/wiring/model-access.js';
import { defineCommand, flag, option } from '../define.js';
import { oneOf } from '../values.js';
import { dirOption, jsonFlag } from './common.js';

export const doctorCommand = defineCommand({
  name: 'doctor',
  summary: 'say what a run here would use (model access) and why, changing nothing',
  description: `Checks this environment, changing nothing and printing no secret.

Model access: a run reaches Gemini with an API key (GEMINI_API_KEY or
GOOGLE_API_KEY), else Vertex AI (GOOGLE_GENAI_USE_VERTEXAI=true with
GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION), else your own Gemini CLI
(\`gemini\` on the PATH, signed in). A \`gemini\` found is checked as a run
checks it: its sign-in, without a model request and without a prompt, within
MAKER_GEMINI_START_S seconds (default 20). When none is available, the ways to
make one so are listed.

Workers: whether each worker kind (--worker) has what it needs here, and if
not, what it lacks: its settings (e.g. JULES_API_KEY) and a model access.

Checks: the sandbox checks would run in, bubblewrap else util-linux unshare,
each tried as a run tries it (MAKER_SANDBOX=bubblewrap|unshare|none narrows the
choice); with none, results are unverified. It also says whether a check's
process and memory limits hold here.

--clean-deps removes the dependency cache of the repository at --dir
(.git/maker-deps/: what installs for checks wrote; the next check that needs
them installs them again), unless an install is under way there.

--rules lists every red-flag rule a candidate or an answer is discarded by:
its id (the \`rule\` of the flags it raises), its scope and what it means.`,
  options: {
    modelAccess: option(
      '--model-access <access>',
      'as `maker run --model-access`: say whether this one would be used',
      oneOf(MODEL_ACCESSES),
    ),
    cleanDeps: flag(
      '--clean-deps',
      "remove the repository's dependency cache for checks, then stop",
    ),
    rules: flag('--rules', 'list the red-flag rules (id, scope, description), then stop'),
    dir: dirOption,
    json: jsonFlag,
  },
  exits: [
    [0, 'checked (or the cache cleaned, or the rules listed)'],
    [1, 'the cache could not be cleaned (an install under way, not a repository)'],
    [2, 'usage error'],
  ],
});
