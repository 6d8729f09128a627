import type { RunConfig, StartIntent } from '../../../core/tree/schema.js';
import { workerKind } from '../../../app/workers/index.js';
import type { CliContext } from '../define.js';
import { demoGitHub } from '../demo-github.js';
import type { Hitl } from './run-drive.js';
import { start } from './run-start.js';
import { settingsOfRun, withGitHub, type Settings } from '../../../app/settings.js';

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
  const kind = workerKind(intent.config.worker);
  const gh = intent.github;
  // The access the start recorded, and the API, whatever the environment says now.
  const asRecorded = settingsOfRun(r.settings, intent.config);
  const settings =
    gh?.apiUrl === undefined ? asRecorded : withGitHub(asRecorded, { apiUrl: gh.apiUrl });
  const demo =
    intent.command === 'demo' && gh !== undefined ? demoGitHub(settings, r.dir) : undefined;
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
      : gh === undefined
        ? {}
        : {
            github: {
              repo: { owner: gh.owner, name: gh.name },
              public: gh.public,
              keepCandidates: gh.keepCandidates,
            },
          }),
    choices: { hitl: intent.config.hitl },
  });
}
