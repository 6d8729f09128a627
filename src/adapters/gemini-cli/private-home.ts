import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * The Gemini CLI home MAKER's calls run in (`GEMINI_CLI_HOME`, Gemini CLI's documented way to keep
 * its state apart), so that nothing of the person's set-up but the sign-in reaches them and nothing
 * they make lands in the person's `~/.gemini`: no `GEMINI.md`, hooks, extensions, commands, skills,
 * MCP servers, telemetry or model settings of theirs; chat recordings, `projects.json` and the
 * like stay in this private directory and go with it.
 *
 * The sign-in is the person's: its files are linked here, never opened by MAKER, and Gemini CLI
 * reads them (and refreshes a token in them) through the links. The one setting carried over is
 * which sign-in they chose (`security.auth`), read from their `settings.json`.
 */

/** The sign-in's files in a Gemini CLI home, linked (never read by MAKER). */
const SIGN_IN_FILES = [
  'oauth_creds.json',
  'google_accounts.json',
  'gemini-credentials.json',
  'installation_id',
  '.env',
] as const;

/** The name of the context file MAKER's calls look for: no one has one. */
export const NO_CONTEXT_FILE = 'MAKER-HAS-NO-CONTEXT-FILE.md';

/** The custom command the sign-in check runs: a shell step MAKER's policy blocks (no model call). */
export const SIGN_IN_CHECK_COMMAND = 'maker-sign-in-check';

const personSettingsSchema = z
  .object({
    security: z
      .object({
        auth: z
          .object({
            selectedType: z.string().optional(),
            enforcedType: z.string().optional(),
            useExternal: z.boolean().optional(),
          })
          .loose()
          .optional(),
      })
      .loose()
      .optional(),
    privacy: z.object({ usageStatisticsEnabled: z.boolean().optional() }).loose().optional(),
  })
  .loose();

/** The person's Gemini CLI directory: under their `GEMINI_CLI_HOME` when set, else their home. */
export function personGeminiDir(env: Readonly<Record<string, string | undefined>>): string {
  return join(personHomeOf(env), '.gemini');
}

function personHomeOf(env: Readonly<Record<string, string | undefined>>): string {
  return (env['GEMINI_CLI_HOME'] ?? '').trim() || (env['HOME'] ?? '').trim() || homedir();
}

/**
 * MAKER's settings for its calls, over the person's sign-in choice: one attempt per request
 * (MAKER waits out limits and retries itself, visibly), no hooks, no skills, no context file, no
 * directory listing, no update checks.
 */
export function privateSettings(person: z.infer<typeof personSettingsSchema>): unknown {
  const auth = person.security?.auth;
  return {
    security: {
      ...(auth === undefined
        ? {}
        : {
            auth: {
              ...(auth.selectedType === undefined ? {} : { selectedType: auth.selectedType }),
              ...(auth.enforcedType === undefined ? {} : { enforcedType: auth.enforcedType }),
              ...(auth.useExternal === undefined ? {} : { useExternal: auth.useExternal }),
            },
          }),
      folderTrust: { enabled: false },
    },
    general: {
      maxAttempts: 1,
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      checkpointing: { enabled: false },
    },
    hooksConfig: { enabled: false },
    skills: { enabled: false },
    context: { fileName: NO_CONTEXT_FILE, includeDirectoryTree: false },
    ...(person.privacy?.usageStatisticsEnabled === undefined
      ? {}
      : { privacy: { usageStatisticsEnabled: person.privacy.usageStatisticsEnabled } }),
  };
}

/**
 * Makes the private home at `home` (an empty directory): `.gemini/settings.json`, the sign-in's
 * links, and the sign-in check's command.
 */
export async function makePrivateHome(
  home: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const personHome = personHomeOf(env);
  const person = join(personHome, '.gemini');
  const gemini = join(home, '.gemini');
  await mkdir(join(gemini, 'commands'), { recursive: true, mode: 0o700 });
  await writeFile(
    join(gemini, 'settings.json'),
    `${JSON.stringify(privateSettings(await readPersonSettings(person)), null, 2)}\n`,
    { mode: 0o600 },
  );
  await writeFile(
    join(gemini, 'commands', `${SIGN_IN_CHECK_COMMAND}.toml`),
    `description = "MAKER's sign-in check: a blocked shell step, so no model call is made"\nprompt = "!{true}"\n`,
    { mode: 0o600 },
  );
  // Only files that exist are linked: a link to a missing one would make Gemini CLI create it in
  // the person's directory (its installation id, an account cache) instead of this private one.
  const link = async (target: string, path: string) => {
    if (await exists(target)) await symlink(target, path);
  };
  for (const name of SIGN_IN_FILES) await link(join(person, name), join(gemini, name));
  await link(join(personHome, '.env'), join(home, '.env'));
}

/** Whether `path` exists (`lstat`: the file is never opened). */
async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Only `security.auth` and `privacy` are kept of it; an unreadable file is none. */
async function readPersonSettings(dir: string): Promise<z.infer<typeof personSettingsSchema>> {
  try {
    const parsed = personSettingsSchema.safeParse(
      JSON.parse(withoutComments(await readFile(join(dir, 'settings.json'), 'utf8'))),
    );
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** JSON with comments (as Gemini CLI allows in settings) as plain JSON: strings are kept whole. */
export function withoutComments(text: string): string {
  return text.replace(
    /("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g,
    (match, string: unknown) => (typeof string === 'string' ? string : ''),
  );
}
