import { DEFAULT_REGISTRIES, type Registries } from '../../core/install-policy.js';

/** The registries installs reach and how: what the lock files are held to, and the proxy's origins. */
export interface InstallNetwork {
  readonly registries: Registries;
  /** Every origin the install's proxy lets through. */
  readonly origins: readonly string[];
  /** The person's own proxy, which the install's proxy goes through. */
  readonly upstream?: string | undefined;
}

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);

function origin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * The registries the person configured in MAKER's environment (npm's `npm_config_registry`, yarn's
 * `YARN_NPM_REGISTRY_SERVER`/`YARN_REGISTRY`, pip's `PIP_INDEX_URL` and `PIP_EXTRA_INDEX_URL`, uv's
 * `UV_DEFAULT_INDEX`/`UV_INDEX_URL`/`UV_EXTRA_INDEX_URL`, Go's `GOPROXY` and `GOSUMDB`), else
 * the public ones. Never read from a file in the repository: a model writes those.
 */
export function installNetwork(env: Readonly<Record<string, string | undefined>>): InstallNetwork {
  const first = (...names: string[]) =>
    names.map((n) => env[n]).find((v) => v !== undefined && v.trim() !== '');
  const npm = first(
    'npm_config_registry',
    'NPM_CONFIG_REGISTRY',
    'YARN_NPM_REGISTRY_SERVER',
    'YARN_REGISTRY',
  );
  const index = first('PIP_INDEX_URL', 'UV_DEFAULT_INDEX', 'UV_INDEX_URL');
  const extra = ['PIP_EXTRA_INDEX_URL', 'UV_EXTRA_INDEX_URL', 'UV_INDEX']
    .flatMap((n) => (env[n] ?? '').split(/\s+/))
    .filter((u) => u !== '')
    .map((u) => u.replace(/^[^=]+=(?=https?:)/, ''));
  const pypi = [index ?? DEFAULT_REGISTRIES.pypi[0], ...extra].map((u) => withSlash(u as string));
  const registries: Registries = {
    npm: npm === undefined ? DEFAULT_REGISTRIES.npm : withSlash(npm),
    pypi,
    pythonFiles: [...DEFAULT_REGISTRIES.pythonFiles, ...pypi.flatMap((u) => origin(u) ?? [])],
  };
  const goProxy = (first('GOPROXY') ?? 'https://proxy.golang.org')
    .split(/[,|]/)
    .filter((u) => /^https?:/.test(u));
  const sumdb = first('GOSUMDB') ?? 'sum.golang.org';
  const origins = new Set(
    [
      registries.npm,
      ...(npm === undefined ? ['https://registry.yarnpkg.com'] : []),
      ...registries.pypi,
      ...registries.pythonFiles,
      ...goProxy,
      ...(sumdb === 'off'
        ? []
        : [
            `https://${sumdb
              .split(/\s+/)
              .pop()
              ?.replace(/^https?:\/\//, '')}`,
          ]),
    ].flatMap((u) => origin(u) ?? []),
  );
  return {
    registries,
    origins: [...origins],
    upstream: first('HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'),
  };
}
