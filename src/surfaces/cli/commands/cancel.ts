import { defineCommand, option } from '../define.js';
import { wholeNumber } from '../values.js';
import { dirOption, jsonFlag, runOption, USAGE_EXIT } from './common.js';

export const cancelCommand = defineCommand({
  name: 'cancel',
  summary: 'stop a run another terminal is driving; its state is kept for `maker resume`',
  description: `Stops the run a \`maker run\`, \`maker resume\` or \`maker demo\` is driving in this
repository, from another terminal: that process is sent SIGINT (what Ctrl-C at
its terminal does), saves the run as cancelled and releases the workspace, and
this command waits until it has. \`maker resume\` continues the run later.

A run driven by Gemini CLI's MAKER server is cancelled there (maker_cancel); a
run no process drives has nothing to stop, and is left as it is.`,
  options: {
    dir: dirOption,
    run: { ...runOption, help: 'the run (default: the one running, else the latest)' },
    wait: option(
      '--wait <seconds>',
      'how long the run has to stop before this command gives up, saying how to stop it at once (default 60)',
      wholeNumber({ min: 1, max: 3600 }),
    ),
    json: { ...jsonFlag, help: 'print {runId, status, stopped, driver} as one JSON object' },
  },
  exits: [
    [0, 'stopped, or nothing was running it (said which)'],
    [1, 'it could not be stopped from here, or did not stop in time (says how to)'],
    USAGE_EXIT,
  ],
});
