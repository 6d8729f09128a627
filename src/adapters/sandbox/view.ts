/**
 * What a sandboxed command sees, as data: an ordered list of mounts applied on an **empty** root
 * (an allow-list: a path no mount names does not exist inside), its whole environment, its working
 * directory and its argv. Each sandbox (bubblewrap, util-linux unshare) renders the same spec.
 */

/** One step of a sandbox's file system, applied in order on an empty root. */
export type Mount =
  /** `source` (a host path, checked by the caller) shown read-only at `target`. */
  | { readonly kind: 'ro-bind'; readonly source: string; readonly target: string }
  /** `source` shown writable at `target`. */
  | { readonly kind: 'bind'; readonly source: string; readonly target: string }
  /** A fresh, empty, size-limited file system in memory at `target`. */
  | { readonly kind: 'tmpfs'; readonly target: string; readonly sizeBytes: number }
  /** A symbolic link at `path` whose text is `link` (`/bin` → `usr/bin` on a merged-/usr system). */
  | { readonly kind: 'symlink'; readonly link: string; readonly path: string }
  /** `path`, inside a tree shown above, made unreadable: an empty directory or an unopenable file. */
  | { readonly kind: 'hide'; readonly path: string; readonly directory: boolean }
  /** A minimal `/dev` (null, zero, full, random, urandom, tty, its own pts and shm). */
  | { readonly kind: 'dev' }
  /** `/proc` of the sandbox's own process namespace. */
  | { readonly kind: 'proc' };

/** A command to run confined. */
export interface SandboxSpec {
  readonly mounts: readonly Mount[];
  /** The command's whole environment (nothing of MAKER's is passed unless named here). */
  readonly env: Readonly<Record<string, string>>;
  /** Its working directory, inside the view. */
  readonly cwd: string;
  /** What runs: an absolute path inside the view (or a name on `env.PATH`), then its arguments. */
  readonly argv: readonly string[];
}

/** Where a check's checkout is inside its sandbox (the same on every run, so outputs compare). */
export const CHECKOUT = '/checkout';

/** The empty home directory of every sandboxed command. */
export const SANDBOX_HOME = '/home/maker';

/** Where an install's cache entry is, inside both the install's sandbox and the checks'. */
export const DEPS = '/deps';

/** Where MAKER puts what it hands a sandbox (the checked tree, the proxy's socket). */
export const MAKER_DIR = '/.maker';

/** A path is usable in a mount: absolute, normalised, no newline or NUL (the unshare steps are lines). */
export function usablePath(path: string): boolean {
  return (
    path.startsWith('/') &&
    !/[\n\r\0]/.test(path) &&
    !path.split('/').some((part) => part === '.' || part === '..')
  );
}

/** The sizes of the memory file systems a sandbox writes in. */
export interface WritableSizes {
  readonly tmpBytes: number;
  readonly homeBytes: number;
}

/** The writable places every sandboxed command has: an empty `/tmp` and an empty home. */
export function scratchMounts(sizes: WritableSizes): Mount[] {
  return [
    { kind: 'tmpfs', target: '/tmp', sizeBytes: sizes.tmpBytes },
    { kind: 'tmpfs', target: SANDBOX_HOME, sizeBytes: sizes.homeBytes },
  ];
}

/** Quotes `text` for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
