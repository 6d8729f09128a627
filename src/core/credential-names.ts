/**
 * The variables MAKER takes its services' credentials from, by service: redacted wherever MAKER
 * writes (`secretsOf`), and kept from a child that has no use for them (Gemini CLI gets no GitHub or
 * Jules credential). gh's are GitHub's: without `GITHUB_TOKEN`, the token MAKER uses is
 * `gh auth token`'s, which is `GH_TOKEN` when set (for GitHub Enterprise, `GH_ENTERPRISE_TOKEN` or
 * `GITHUB_ENTERPRISE_TOKEN`).
 */
export const CREDENTIAL_NAMES = {
  gemini: ['GEMINI_API_KEY'],
  jules: ['JULES_API_KEY'],
  github: ['GITHUB_TOKEN', 'GH_TOKEN', 'GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN'],
} as const;
