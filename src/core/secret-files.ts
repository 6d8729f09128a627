import { isMakerFile } from './candidate-policy.js';
import { makeRedactor, type Redactor } from './errors.js';

/**
 * What of a user's repository is never shown to a model: files that by their name hold
 * credentials, and MAKER's own state. Pure functions; the repository view applies them.
 */

/** `.env` and `.env.*` except the templates projects commit on purpose (`.env.example`). */
const DOTENV = /^\.env(?:\.(?!(?:example|sample|template|dist|defaults)$)[^/]+)?$/i;
const SECRET_NAMES = new Set([
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '_netrc',
  '.git-credentials',
  '.htpasswd',
  '.pgpass',
  'credentials',
  'credentials.json',
]);
const SECRET_EXTENSIONS =
  /\.(?:env|pem|key|p8|p12|pfx|jks|keystore|ppk|tfstate|tfstate\.backup|tfvars)$/i;
const SECRET_JSON = /^(?:client_secret|service[-_]?account)[^/]*\.json$/i;
const SECRETS_FILE = /^secrets?\.(?:json|ya?ml|toml)$/i;

/** Whether a repository path is withheld from models: a credential file by name, or MAKER's state. */
export function withheldFromModels(path: string): boolean {
  if (isMakerFile(path)) return true;
  const name = (path.split('/').pop() ?? path).toLowerCase();
  return (
    DOTENV.test(name) ||
    SECRET_NAMES.has(name) ||
    SECRET_EXTENSIONS.test(name) ||
    SECRET_JSON.test(name) ||
    SECRETS_FILE.test(name)
  );
}

/** Credentials that {@link makeRedactor} does not know by format: AWS key ids, Slack tokens, private keys (whole). */
const MORE_FORMATS =
  /AKIA[0-9A-Z]{16}|xox[baprs]-[0-9A-Za-z-]{10,}|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;

/**
 * Redacts what a model is shown of a file: the run's configured keys, whatever their format, and
 * credentials of known formats (a private key as a whole block).
 */
export function modelTextRedactor(secrets: readonly string[]): Redactor {
  const known = makeRedactor(secrets);
  return (text) => known(text).replace(MORE_FORMATS, '[redacted]');
}
