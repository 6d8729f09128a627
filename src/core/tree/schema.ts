import { z } from 'zod';
import { runConfigSchema } from './config-schema.js';
import { acceptanceOutcomeSchema } from './acceptance-schema.js';
import { drawBehaviourSchema, probeOutcomeSchema } from './probe-schema.js';
import { startIntentSchema } from './intent.js';
import { nodeReopenSchema, reopenSchema } from './reopen-schema.js';

export { runConfigSchema, samplingSchema } from './config-schema.js';
export type { StartIntent } from './intent.js';
export type { NodeReopen, Reopen } from './reopen-schema.js';

/**
 * The persisted shape of MAKER runs (`maker-state.json`), schema version 3. Everything a run needs
 * to resume is here; no secret ever is. Node lifecycles are discriminated by `status`. Older
 * versions are migrated on load (`src/adapters/state/migrations.ts`).
 */
export const STATE_SCHEMA_VERSION = 3;

export const redFlagSchema = z.object({ rule: z.string(), message: z.string() });

/** One paid draw (a model call or worker run) in some vote, recorded before it is awaited. */
export const drawSchema = z.object({
  slot: z.number().int().nonnegative(),
  status: z.enum(['started', 'valid', 'flagged']),
  /**
   * Equivalence key of a valid draw: a code candidate's normalised content (its tree hash in files
   * written before classes were normalised), a split's structure, `yes`/`no`, a ballot's choice.
   */
  key: z.string().optional(),
  /** A code candidate's normalised content with local names renamed (`core/voting/classes.ts`). */
  alias: z.string().optional(),
  /**
   * A code candidate's git tree at its base (absent in older files: then `key` is the tree); a
   * flagged one's when its check failed (a reopening replays the check on it).
   */
  tree: z.string().optional(),
  /** The payload a valid draw votes for: a patch, a split, a ballot choice, a yes/no. */
  value: z.unknown().optional(),
  flags: z.array(redFlagSchema).default([]),
  /** External id (a Jules session) so a resume re-attaches instead of paying again. */
  externalId: z.string().optional(),
  summary: z.string().optional(),
  /** The subtask's check, when it ran on this candidate (a failing one is also a red flag). */
  check: z.object({ command: z.string(), ok: z.boolean(), output: z.string() }).optional(),
  /** A code candidate's run under its leaf's probe: what `key` is made of (`engine/probe.ts`). */
  behaviour: drawBehaviourSchema.optional(),
  /**
   * A code candidate flagged only for failing its leaf's acceptance test: how it failed it, as a
   * digest, and its text's key (local names renamed), so candidates written differently that fail
   * it alike can contest the test (`core/voting/test-contest.ts`).
   */
  contests: z.object({ failure: z.string(), text: z.string() }).optional(),
});

export const voteOutcomeSchema = z.object({
  status: z.enum(['decided', 'undecided', 'human']),
  /** With status `human`: the run's `--hitl auto` policy chose, not a person. */
  auto: z.literal(true).optional(),
  key: z.string().optional(),
  votes: z.number().int().nonnegative(),
  runnerUpVotes: z.number().int().nonnegative(),
  draws: z.number().int().nonnegative(),
  flagged: z.number().int().nonnegative(),
  /** The vote's classes when it ended: each class's key and its members' slots, most votes first. */
  classes: z.array(z.object({ key: z.string(), slots: z.array(z.number().int()) })).optional(),
  /** What settled it: `agreement` (a class ahead by k) or `ballots` (judges, among classes none led by k). */
  settledBy: z.enum(['agreement', 'ballots']).optional(),
  /**
   * A narrow win raised k (`core/voting/adaptive-k.ts`) and the vote did not settle at this raised
   * k within the cap: the decision at the lower k stands, and this is that k.
   */
  stoodAtK: z.number().int().min(1).optional(),
});

/** A vote in progress or done: candidate draws, then (if they did not decide) judge ballots. */
export const voteRecordSchema = z.object({
  attempt: z.number().int().nonnegative().default(0),
  draws: z.array(drawSchema).default([]),
  ballots: z.array(drawSchema).default([]),
  outcome: voteOutcomeSchema.optional(),
  /**
   * The margin this vote counts with once a narrow win raised it above the run's k
   * (`core/voting/adaptive-k.ts`); absent: the run's k. Saved before the draws it asks for.
   */
  k: z.number().int().min(1).optional(),
  /** Why k was raised, one entry per raise. */
  kRaised: z.array(z.string()).optional(),
  /** The decision before the last raise of k: it stands if the raised vote does not settle. */
  standing: voteOutcomeSchema.optional(),
  /**
   * Which member of the winning class lands, when its members' texts differ (a class keyed by
   * behaviour: `engine/text-vote.ts` `landedMember`): its slot, and what chose it among the texts.
   */
  landed: z
    .object({
      key: z.string(),
      slot: z.number().int().nonnegative(),
      texts: z.number().int().positive(),
      by: z.enum(['agreement', 'ballots', 'favourite']),
    })
    .optional(),
  /** The judges' ballots among the winning class's texts (see `landed`). */
  textBallots: z.array(drawSchema).optional(),
  /** Finished draws and ballots of earlier attempts, dropped when the vote started over: paid, so still counted. */
  retired: z
    .object({ samples: z.number().int().nonnegative(), flagged: z.number().int().nonnegative() })
    .optional(),
});

export const subtaskSchema = z.object({
  title: z.string().min(1).max(200),
  description: z.string().min(1).max(4000),
  acceptance: z.array(z.string().min(1).max(1000)).max(20).default([]),
  files: z.array(z.string().min(1).max(512)).max(50).default([]),
  /**
   * Shared files it may add entries to (manifests, `__init__.py`, index files), which other
   * subtasks may add to as well; its candidates may write them beside `files`.
   */
  shared: z.array(z.string().min(1).max(512)).max(20).optional(),
  /**
   * What it promises its siblings: exported names with their signatures, commands, or files they
   * may use. Shown to the other subtasks' workers; not part of a split's class key (prose).
   */
  provides: z.array(z.string().min(1).max(300)).max(12).optional(),
  /** Indices of earlier siblings this one builds on. */
  dependsOn: z.array(z.number().int().nonnegative()).default([]),
  /** A shell command that must pass on a candidate (optional). */
  check: z.string().min(1).max(500).optional(),
});

export const nodeStatusSchema = z.enum([
  'pending',
  'deciding',
  'splitting',
  'sampling',
  'composing',
  'done',
  'failed',
]);

/** Model requests and billed tokens of one role. */
export const roleCostSchema = z.object({ calls: z.number(), tokens: z.number() });
export type RoleCost = z.infer<typeof roleCostSchema>;

export const nodeSchema = z.object({
  id: z.string().min(1),
  parentId: z.string().nullable(),
  depth: z.number().int().nonnegative(),
  index: z.number().int().nonnegative(),
  ...subtaskSchema.shape,
  status: nodeStatusSchema,
  kind: z.enum(['undecided', 'leaf', 'branch']).default('undecided'),
  children: z.array(z.string()).default([]),
  clarifications: z.array(z.object({ question: z.string(), answer: z.string() })).default([]),
  minimal: voteRecordSchema.optional(),
  split: voteRecordSchema.optional(),
  leaf: voteRecordSchema.optional(),
  /**
   * The vote on where the failure of every candidate of this node comes from: an earlier finished
   * node, or this one (see `engine/trace.ts`).
   */
  blame: voteRecordSchema.optional(),
  /**
   * The votes on where a failure of this node's composition comes from (a merge that broke checks,
   * its own check on the composed result), by failure: `merge-<child index>`, `check`.
   */
  blames: z.record(z.string(), voteRecordSchema).optional(),
  /**
   * Its acceptance test: voted from its task and criteria by calls that never see a candidate, and
   * kept only if it fails without the leaf's code (`engine/acceptance-test.ts`).
   */
  acceptanceTest: acceptanceOutcomeSchema.extend({ vote: voteRecordSchema }).optional(),
  /**
   * Its probe: voted from its task and criteria by calls that never see a candidate; candidates
   * are keyed by what it prints on them (`engine/probe.ts`).
   */
  probe: probeOutcomeSchema.extend({ vote: voteRecordSchema }).optional(),
  /** Its reopenings: a failure found later was traced to its result (absent: never reopened). */
  reopen: nodeReopenSchema.optional(),
  /** Conflict resolutions, by the index of the child whose merge conflicted. */
  integrations: z
    .record(z.string(), voteRecordSchema.extend({ conflicts: z.array(z.string()) }))
    .default({}),
  branch: z.string().optional(),
  baseCommit: z.string().optional(),
  /** Heads of this node's branch: [base, after merging child 0, after child 1, …]. */
  mergeHeads: z.array(z.string()).default([]),
  /**
   * Every external session paid for on this node (a Jules session id), recorded the moment it is
   * known and kept when the node's votes are resampled or the node is split: what was bought.
   */
  externalIds: z.array(z.string()).optional(),
  commit: z.string().optional(),
  /**
   * The checks that ran on this node's latest result (`tree`): a branch's after its latest merge
   * (every check below the merged children, its own after the last), the root's before the veto.
   * A leaf's are on its winning candidate (`leaf.draws[].check`).
   */
  checks: z
    .object({
      tree: z.string(),
      results: z.array(z.object({ command: z.string(), ok: z.boolean(), output: z.string() })),
    })
    .optional(),
  error: z.string().optional(),
  cost: z
    .object({
      /** Requests sent to a language model for this node, by MAKER's roles and by its workers. */
      modelCalls: z.number(),
      workerRuns: z.number(),
      tokens: z.number(),
      /** The same requests and tokens by role (`minimal`, `split`, `review`, `ballot`, `worker`). */
      roles: z.record(z.string(), roleCostSchema).optional(),
    })
    .default({ modelCalls: 0, workerRuns: 0, tokens: 0 }),
});

export const questionSchema = z.object({
  id: z.string().min(1),
  nodeId: z.string().nullable(),
  kind: z.enum(['clarify', 'select', 'veto']),
  prompt: z.string(),
  options: z.array(z.object({ id: z.string(), label: z.string(), detail: z.string().optional() })),
  /** Clarify questions also take free text. */
  allowText: z.boolean().default(false),
  context: z.string().optional(),
  createdAt: z.string(),
  answer: z
    .object({
      optionId: z.string().optional(),
      text: z.string().optional(),
      /** Given by the run's `--hitl auto` policy, not by a person. */
      auto: z.literal(true).optional(),
      answeredAt: z.string(),
    })
    .optional(),
});

/** A wait on an external service a person is shown: which, why, since and until when (ISO times). */
export const waitSchema = z.object({
  id: z.string(),
  service: z.string(),
  reason: z.string(),
  since: z.string(),
  until: z.string(),
});

/** A run's repository on GitHub: where it is, what MAKER pushed there, and its pull request. */
export const githubRunSchema = z.object({
  owner: z.string(),
  name: z.string(),
  /** GitHub's repository id. */
  id: z.number().int(),
  /** The repository's web page. */
  url: z.string(),
  /** What git pushes to (never with a credential). */
  cloneUrl: z.string(),
  /** The REST API it was reached through (https://api.github.com, or a local fake). */
  apiUrl: z.string(),
  /** Created by this run (else an existing repository was used). */
  created: z.boolean().default(false),
  /**
   * Set only for a `maker demo` on the fake GitHub it served itself (simulated, never a real
   * GitHub): its world is kept in `.git/maker-fake-github/`, and `maker resume` serves it again.
   */
  demoFake: z.literal(true).optional(),
  /** The branch the pull request goes into. */
  defaultBranch: z.string(),
  /** Keep the candidate refs of select questions after the vote (`--keep-candidates`). */
  keepCandidates: z.boolean().default(false),
  /** Per branch, the commit MAKER last pushed: every push leases on it. */
  leases: z.record(z.string(), z.string()).default({}),
  pullRequest: z
    .object({
      number: z.number().int(),
      url: z.string(),
      state: z.enum(['open', 'closed', 'merged']),
    })
    .optional(),
});

export const runStatusSchema = z.enum([
  'running',
  'awaiting-human',
  'done',
  'vetoed',
  'failed',
  /** Stopped before landing: its checks failed or could not run, and no person could be asked. */
  'failed-checks',
  'cancelled',
]);

export const runSchema = z.object({
  id: z.string().regex(/^[a-z0-9-]+$/),
  idea: z.string().min(1),
  createdAt: z.string(),
  status: runStatusSchema,
  config: runConfigSchema,
  baseCommit: z.string(),
  rootId: z.string(),
  nodes: z.record(z.string(), nodeSchema),
  questions: z.array(questionSchema).default([]),
  eventSeq: z.number().int().nonnegative().default(0),
  /**
   * A landing under way, recorded before the first step that touches the default branch or the
   * working tree: move `target` from `from` to `to` (the root's commit, or a merge of it). A resume
   * finishes it from wherever it stopped.
   */
  landing: z
    .object({
      target: z.string(),
      from: z.string(),
      to: z.string(),
      startedAt: z.string(),
      /**
       * Landing through the run's pull request: `to` is the head it is merged at, and once the host
       * merged it, `mergeCommit` is its merge commit, which `target` then moves to.
       */
      pullRequest: z.number().int().optional(),
      mergeCommit: z.string().optional(),
    })
    .optional(),
  /**
   * The run's GitHub repository (absent: the run composes locally only). Its ids, the pull request
   * and the leases (what MAKER last pushed per branch) are saved before anything else waits on them.
   */
  github: githubRunSchema.optional(),
  /** The root's overall check on the composed result (`maker run --check`), run before the veto. */
  finalCheck: z
    .object({ command: z.string(), ok: z.boolean(), output: z.string(), commit: z.string() })
    .optional(),
  /**
   * The sandbox this run's checks run in, probed at each start; null when none works here (its
   * result is then unverified). Absent: not probed (checks off, or a file from before).
   */
  sandbox: z.string().nullable().optional(),
  /**
   * Waits on external services under way (an outage's backoff, a rate or plan limit), so another
   * process (`maker status`) can show them; each is removed when it ends, all when the run stops.
   */
  waits: z.array(waitSchema).optional(),
  /** Finished nodes reopened, in order (absent: none). */
  reopens: z.array(reopenSchema).optional(),
  /**
   * A reopening decided and saved, not applied yet: the run stopped its work to redo the node, and
   * applies it (once nothing runs) before it goes on; a resume applies it first.
   */
  reopening: reopenSchema.optional(),
  result: z
    .object({
      rootBranch: z.string(),
      finalCommit: z.string(),
      treeHash: z.string(),
      landed: z.boolean(),
    })
    .optional(),
  error: z.string().optional(),
});

/**
 * Paid external work shared by every run of the workspace: when each worker's sessions started
 * (ISO times, the last 24 hours kept), so a daily session budget holds across runs and restarts.
 */
export const ledgerSchema = z.object({
  sessionStarts: z.record(z.string(), z.array(z.string())).default({}),
});

export const stateFileSchema = z.object({
  $schemaVersion: z.literal(STATE_SCHEMA_VERSION),
  runs: z.record(z.string(), runSchema),
  ledger: ledgerSchema.optional(),
  /** A run being started, not created yet (see `intent.ts`). */
  starting: startIntentSchema.optional(),
});

export type RedFlagData = z.infer<typeof redFlagSchema>;
export type Draw = z.infer<typeof drawSchema>;
export type VoteRecord = z.infer<typeof voteRecordSchema>;
export type VoteOutcome = z.infer<typeof voteOutcomeSchema>;
export type Subtask = z.infer<typeof subtaskSchema>;
export type TreeNode = z.infer<typeof nodeSchema>;
export type NodeStatus = z.infer<typeof nodeStatusSchema>;
export type Question = z.infer<typeof questionSchema>;
export type RunConfig = z.infer<typeof runConfigSchema>;
export type Ledger = z.infer<typeof ledgerSchema>;
export type RunStatus = z.infer<typeof runStatusSchema>;
export type Run = z.infer<typeof runSchema>;
export type Wait = z.infer<typeof waitSchema>;
export type GitHubRun = z.infer<typeof githubRunSchema>;
export type StateFile = z.infer<typeof stateFileSchema>;
