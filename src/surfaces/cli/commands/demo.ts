import { WORKERS, kindsWhere, type WorkerName } from '../../../app/workers/index.js';
import { defineCommand, flag, option } from '../define.js';
import { oneOf, wholeNumber } from '../values.js';
import { INTERRUPTED_EXIT, USAGE_EXIT, dirOption } from './common.js';
import { RUN_OPTIONS as O } from './run-options.js';

/** The kinds a demo may use: the offline, simulated ones. */
const SIMULATED_WORKERS = Object.values(WORKERS)
  .filter((k) => k.simulated)
  .map((k) => k.name) as [WorkerName, ...WorkerName[]];

export const demoCommand = defineCommand({
  name: 'demo',
  summary: 'the whole pipeline offline on the simulated model and worker',
  description: `The whole pipeline offline on the simulated planner in a fresh repository (a
temp directory unless --dir), questions answered automatically. Every candidate
is simulated: nothing it writes is real work. By default the run works against
a local fake GitHub on 127.0.0.1 (simulated too): the repository is created
there, every node branch pushed, the result opened as a pull request, and
accepting the veto merges it. That fake keeps its world in the repository's
.git/maker-fake-github/, so a demo killed at any point is continued by
\`maker resume\`, which serves it again. With GITHUB_API_URL pointing at a
loopback address (\`maker fake-github\` in another process) the demo uses that
one instead (GITHUB_TOKEN its token).
--local-only composes in the local repository alone. --worker jules-fake sends
every candidate through the Jules REST protocol to a local fake Jules server,
which reads the same (fake) GitHub repository.`,
  args: [
    {
      name: 'idea',
      help: 'what to pretend to build (default: a command-line tool that converts CSV files to JSON)',
    },
  ],
  options: {
    dir: {
      ...dirOption,
      help: 'the repository (created if missing; default: a new temp directory)',
    },
    worker: option(
      '--worker <kind>',
      `${kindsWhere((k) => k.simulated)} (default sim): ${Object.values(WORKERS)
        .filter((k) => k.simulated)
        .map((k) => `${k.name}: ${k.summary}`)
        .join('; ')}`,
      oneOf(SIMULATED_WORKERS),
    ),
    seed: O.seed,
    view: {
      ...O.view,
      help: 'serve the live view of the run on 127.0.0.1 (its address, token included, is printed on stderr); its questions then wait for your answer on the page instead of being answered automatically. The page stays open after the run ends, until Ctrl-C',
    },
    pace: option(
      '--pace <ms>',
      'make every simulated call take this long, to watch the run move (default 0)',
      wholeNumber({ min: 0, max: 60_000 }),
    ),
    localOnly: flag(
      '--local-only',
      'compose in the local repository only, without the local fake GitHub',
    ),
    json: { ...O.json, help: 'print one JSON summary at the end' },
  },
  exits: [[0, 'done'], [1, 'failed'], USAGE_EXIT, INTERRUPTED_EXIT],
});
