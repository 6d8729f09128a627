declare const MAKER_VERSION: string | undefined;

/** maker's version: the package's, set by the build (unbundled sources, in tests: 0.0.0-dev). */
export const VERSION = typeof MAKER_VERSION === 'string' ? MAKER_VERSION : '0.0.0-dev';
