import { z } from 'zod';
import { runConfigSchema } from './config-schema.js';

/**
 * A run being started, saved in `maker-state.json` right after the workspace's lock is taken and
 * before its first side effect of any kind (`git init`, the demo's fake GitHub, the first GitHub
 * write). A kill anywhere between that save and the run's own first save leaves it here, and
 * `maker resume` finishes the start from wherever it stopped (looking the GitHub repository up
 * before creating it), then drives the run. The run's creation removes it, in the same save.
 */
export const startIntentSchema = z.object({
  /** The run's id, chosen before anything is made. */
  id: z.string().regex(/^[a-z0-9-]+$/),
  idea: z.string().min(1),
  createdAt: z.string(),
  /** What started it: `maker run`, `maker demo`, or the MCP server's `maker_start`. */
  command: z.enum(['run', 'demo', 'mcp']),
  /** The run's configuration but its default branch (known once the repository is there). */
  config: runConfigSchema.omit({ defaultBranch: true }),
  /** The person's overall check (`maker run --check`). */
  check: z.string().optional(),
  /** What the start is about to make; each is looked up again before it is made. */
  creates: z.object({
    directory: z.boolean(),
    gitRepository: z.boolean(),
    githubRepository: z.boolean(),
  }),
  /** The run's GitHub repository (absent: it composes locally only). */
  github: z
    .object({
      owner: z.string(),
      name: z.string(),
      /** The REST API; absent for a demo's own fake GitHub (served again on any port). */
      apiUrl: z.string().optional(),
      public: z.boolean(),
      keepCandidates: z.boolean(),
      /** A `maker demo` on the fake GitHub it serves itself, its world in `.git/maker-fake-github/`. */
      demoFake: z.literal(true).optional(),
    })
    .optional(),
});

export type StartIntent = z.infer<typeof startIntentSchema>;
