import { z, type ZodType } from 'zod';

/** The parts of Jules v1alpha resources MAKER reads; every other field is tolerated and ignored. */

const gitPatchSchema = z.looseObject({
  unidiffPatch: z.string().nullish(),
  baseCommitId: z.string().nullish(),
  suggestedCommitMessage: z.string().nullish(),
});

export const changeSetSchema = z.looseObject({
  source: z.string().nullish(),
  gitPatch: gitPatchSchema.nullish(),
});

export const sessionStateSchema = z.string(); // QUEUED | PLANNING | AWAITING_PLAN_APPROVAL | AWAITING_USER_FEEDBACK | IN_PROGRESS | PAUSED | FAILED | COMPLETED | …

export const sessionSchema = z.looseObject({
  name: z.string(),
  id: z.string(),
  title: z.string().nullish(),
  prompt: z.string().nullish(),
  state: sessionStateSchema.nullish(),
  url: z.string().nullish(),
  createTime: z.string().nullish(),
  updateTime: z.string().nullish(),
  sourceContext: z
    .looseObject({
      source: z.string().nullish(),
      githubRepoContext: z.looseObject({ startingBranch: z.string().nullish() }).nullish(),
    })
    .nullish(),
  outputs: z
    .array(
      z.looseObject({
        changeSet: changeSetSchema.nullish(),
        pullRequest: z.looseObject({ url: z.string().nullish() }).nullish(),
      }),
    )
    .nullish(),
});

export const activitySchema = z.looseObject({
  name: z.string().nullish(),
  id: z.string().nullish(),
  createTime: z.string().nullish(),
  originator: z.string().nullish(),
  description: z.string().nullish(),
  agentMessaged: z.looseObject({ agentMessage: z.string().nullish() }).nullish(),
  userMessaged: z.looseObject({ userMessage: z.string().nullish() }).nullish(),
  planApproved: z.looseObject({ planId: z.string().nullish() }).nullish(),
  planGenerated: z
    .looseObject({
      plan: z
        .looseObject({
          id: z.string().nullish(),
          steps: z
            .array(
              z.looseObject({ title: z.string().nullish(), description: z.string().nullish() }),
            )
            .nullish(),
        })
        .nullish(),
    })
    .nullish(),
  sessionFailed: z.looseObject({ reason: z.string().nullish() }).nullish(),
  sessionCompleted: z.looseObject({}).nullish(),
  artifacts: z
    .array(
      z.looseObject({
        changeSet: changeSetSchema.nullish(),
        bashOutput: z
          .looseObject({
            command: z.string().nullish(),
            output: z.string().nullish(),
            exitCode: z.union([z.number(), z.string()]).nullish(),
          })
          .nullish(),
      }),
    )
    .nullish(),
});

export const sourceSchema = z.looseObject({
  name: z.string(),
  id: z.string().nullish(),
  githubRepo: z.looseObject({ owner: z.string().nullish(), repo: z.string().nullish() }).nullish(),
});

export const sourcesPageSchema = z.looseObject({
  sources: z.array(sourceSchema).nullish(),
  nextPageToken: z.string().nullish(),
});
export const sessionsPageSchema = z.looseObject({
  sessions: z.array(sessionSchema).nullish(),
  nextPageToken: z.string().nullish(),
});
export const activitiesPageSchema = z.looseObject({
  activities: z.array(activitySchema).nullish(),
  nextPageToken: z.string().nullish(),
});

export const errorEnvelopeSchema = z.looseObject({
  error: z.looseObject({
    code: z.number().nullish(),
    message: z.string().nullish(),
    status: z.string().nullish(),
    details: z
      .array(
        z.looseObject({
          '@type': z.string().nullish(),
          /** google.rpc.BadRequest */
          fieldViolations: z
            .array(
              z.looseObject({ field: z.string().nullish(), description: z.string().nullish() }),
            )
            .nullish(),
          /** google.rpc.QuotaFailure */
          violations: z
            .array(
              z.looseObject({ subject: z.string().nullish(), description: z.string().nullish() }),
            )
            .nullish(),
          /** google.rpc.RetryInfo: a protobuf Duration, e.g. "3600s" or "1.5s". */
          retryDelay: z.string().nullish(),
        }),
      )
      .nullish(),
  }),
});

export type JulesSession = z.infer<typeof sessionSchema>;
export type JulesActivity = z.infer<typeof activitySchema>;
export type JulesSource = z.infer<typeof sourceSchema>;

/** A 2xx answer's body read by `schema` (none: nothing to read), or why it cannot be. */
export function readAnswer<T>(
  text: string,
  schema: ZodType<T> | undefined,
  what: string,
): { ok: true; value: T } | { ok: false; failure: string } {
  if (schema === undefined) return { ok: true, value: undefined as T };
  let json: unknown;
  try {
    json = text === '' ? {} : JSON.parse(text);
  } catch {
    return { ok: false, failure: `${what} answered with something that is not JSON` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    failure: `${what} answered with an unexpected shape: ${issue?.path.join('.')} ${issue?.message}`,
  };
}
