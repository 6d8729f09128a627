import { defineCommand } from '../define.js';
import { dirOption, runOption } from './common.js';
import { KIND_FLAGS, RUN_EXITS, RUN_OPTIONS as O } from './run-options.js';

export const resumeCommand = defineCommand({
  name: 'resume',
  summary: 'continue an unfinished run from maker-state.json',
  description: `Continues an unfinished run (the latest one unless --run) from the state file,
exactly where it stopped: finished work is never paid for twice.`,
  options: {
    dir: dirOption,
    run: { ...runOption, help: 'the run (default: the latest unfinished one)' },
    hitl: O.hitl,
    view: O.view,
    replay: O.replay,
    ...KIND_FLAGS,
    json: O.json,
  },
  notes:
    "A worker kind's options (--jules-…) raise (or lower) the limits the run was\nstarted with. --hitl (or --view without --hitl) replaces the run's question\npolicy from this resume on. Without them the run keeps its own: one that waited\nfor answers (tty or view) asks its pending questions again at this terminal; off\na terminal it saves them and exits 4 (answer with `maker answer`, then resume).\n",
  exits: RUN_EXITS,
});
