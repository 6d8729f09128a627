import type { RunConfig, StartIntent } from '../../../core/tree/schema.js';
import { finishingStart } from '../../../app/resume-run.js';
import type { CliContext } from '../define.js';
import { demoGitHub } from '../demo-github.js';
import type { Hitl } from './run-drive.js';
import { start } from './run-start.js';
import type { Settings } from '../../../app/settings.js';

/**
 * `maker resume` of a start a kill interrupted before the run was created: the same start again
 * from its recorded intent (its id, idea, configuration and GitHub repository), which looks up
 * what was already made (the repository, `.git`, the pushed branch) before making anything.
 */
export async function resumeStart(
  ctx: CliContext,
  recorded: StartIntent,
  r: {
    dir: string;
    settings: Settings;
    hitlChoice: Hitl;
    json: boolean;
    view: boolean;
    hitl: RunConfig['hitl'];
  },
): Promise<number> {
  const intent = { ...recorded, config: { ...recorded.config, hitl: r.hitl } };
  const { kind, settings, ask } = finishingStart(intent, r.settings);
  const demo =
    intent.command === 'demo' && intent.github !== undefined
      ? demoGitHub(settings, r.dir)
      : undefined;
  if (!r.json)
    ctx.io.stderr(
      `maker: finishing the start of run ${intent.id}, which was interrupted (Ctrl-C or a kill) before the run was saved.\n`,
    );
  return start(ctx, {
    idea: intent.idea,
    dir: r.dir,
    kind,
    settings,
    hitlChoice: r.hitlChoice,
    json: r.json,
    demo: intent.command === 'demo',
    view: r.view,
    resuming: intent,
    ...(intent.check === undefined ? {} : { check: intent.check }),
    ...(demo !== undefined
      ? { github: demo.ask, serveGitHub: demo.serve, intentGitHub: demo.intent }
      : { github: ask }),
    choices: { hitl: intent.config.hitl },
  });
}
