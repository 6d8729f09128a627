import { defineCommand } from '../define.js';
import { dirOption, runOption } from './common.js';
import { RUN_EXITS, RUN_OPTIONS as O } from './run-options.js';

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
    julesPlan: O.julesPlan,
    julesConcurrency: O.julesConcurrency,
    julesDailySessions: O.julesDailySessions,
    julesPlanReview: O.julesPlanReview,
    julesOutageSeconds: O.julesOutageSeconds,
    json: O.json,
  },
  notes:
    "The --jules-… options raise (or lower) the limits the run was started with. --hitl\n(or --view without --hitl) replaces the run's question policy from this resume on.\nWithout them the run keeps its own: one that waited for answers (tty or view) asks\nits pending questions again at this terminal; off a terminal it saves them and\nexits 4 (answer with `maker answer`, then resume).\n",
  exits: RUN_EXITS,
});
