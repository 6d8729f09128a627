import type { CheckSandbox, Hidden, ReadOnlyBind } from './bwrap.js';

/**
 * The set-up run by `sh` inside util-linux `unshare`'s new user (mapped to root), mount, PID, IPC,
 * UTS (and for a check, network) namespaces, before the command. It builds what bubblewrap builds:
 *
 * 1. Every path it is given is resolved on the host first (`readlink -m`), so a symbolic link in
 *    one cannot point a mount elsewhere later.
 * 2. A tmpfs on `/tmp` becomes the root, holding only the system's programs (`/usr`, `/bin`, `/lib`…
 *    bound in) and the old root at `/old`, so the old `/tmp` is reachable again.
 * 3. `/new` gets the whole old tree, every mount of it remounted read-only, a private `/tmp`, a
 *    minimal `/dev` (null, zero, full, random, urandom, tty, its own pts and shm), then the steps
 *    in order: `hide-dir P` (an empty tmpfs over P), `hide-file P` (`/dev/null` over P), `bind S T`
 *    (S writable at T), `ro-bind S T` (S read-only at T), `setenv N V`. A hidden path that is not
 *    there (under a place already hidden) is skipped: nothing of it is visible.
 * 4. `/new` becomes the root, the old one is detached, and the command runs from its directory in
 *    a new session with no capabilities at all (bounding set emptied, no new privileges), so it
 *    cannot remount anything writable nor unmount what hides a place, though it is root in its
 *    namespace; a namespace it makes itself sees every mount locked.
 *
 * Its own tools (mount, pivot_root, setpriv, …) are found in the system's directories, whatever the
 * PATH; the command gets the PATH it was given. Any failing step stops it (`set -e`) before the
 * command runs.
 */
const SETUP = String.raw`set -eu
command=$1; cwd=$2; shift 2
path=$PATH
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
nl='
'
canon() {
  case $1 in *"$nl"*|'') echo "maker sandbox: unusable path" >&2; return 1 ;; esac
  readlink -m -- "$1"
}
steps=
while [ $# -gt 0 ]; do
  kind=$1
  case $kind in
    hide-dir|hide-file) a=$(canon "$2"); b=; shift 2 ;;
    bind|ro-bind) a=$(canon "$2"); b=$(canon "$3"); shift 3 ;;
    setenv) a=$2; b=$3; shift 3 ;;
    *) echo "maker sandbox: unknown step $kind" >&2; exit 70 ;;
  esac
  case $a$b in *"$nl"*) echo "maker sandbox: unusable value" >&2; exit 70 ;; esac
  steps=$steps$kind$nl$a$nl$b$nl
done
cwd=$(canon "$cwd")
setpriv=$(command -v setpriv)
setsid=$(command -v setsid)
mount -t tmpfs -o mode=0755 maker-sandbox /tmp
cd /tmp
for d in usr bin sbin lib lib32 lib64 libx32; do
  if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$d"
  elif [ -d "/$d" ]; then mkdir "$d"; mount --rbind "/$d" "$d"; fi
done
mkdir proc new old
mount --rbind /proc proc
pivot_root . old
cd /
mount --rbind /old /new
mounts=$(cat /proc/self/mountinfo)
while read -r _ _ _ _ mp _; do
  mp=$(printf '%b' "$mp")
  case $mp in /new|/new/*) mount -o remount,bind,ro "$mp" ;; esac
done <<EOF
$mounts
EOF
mount -t tmpfs -o mode=1777 maker-tmp /new/tmp
mount -t tmpfs -o mode=0755 maker-dev /new/dev
for d in null zero full random urandom tty; do
  touch "/new/dev/$d"
  mount --bind "/old/dev/$d" "/new/dev/$d"
done
ln -s /proc/self/fd /new/dev/fd
ln -s /proc/self/fd/0 /new/dev/stdin
ln -s /proc/self/fd/1 /new/dev/stdout
ln -s /proc/self/fd/2 /new/dev/stderr
mkdir /new/dev/shm /new/dev/pts
mount -t tmpfs -o mode=1777 maker-shm /new/dev/shm
if mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /new/dev/pts 2>/old/dev/null; then
  ln -s pts/ptmx /new/dev/ptmx
fi
while IFS= read -r kind && IFS= read -r a && IFS= read -r b; do
  case $kind in
    hide-dir) if [ -d "/new$a" ]; then mount -t tmpfs -o mode=0755 maker-hidden "/new$a"; fi ;;
    hide-file) if [ -e "/new$a" ] && [ ! -d "/new$a" ]; then mount --bind /old/dev/null "/new$a"; fi ;;
    bind|ro-bind)
      if [ -d "/old$a" ]; then mkdir -p "/new$b"
      elif [ ! -e "/new$b" ]; then mkdir -p "$(dirname "/new$b")"; touch "/new$b"; fi
      mount --bind "/old$a" "/new$b"
      if [ "$kind" = ro-bind ]; then mount -o remount,bind,ro "/new$b"; fi ;;
    setenv) export "$a=$b" ;;
  esac
done <<EOF
$steps
EOF
mkdir /new/tmp/.maker-old
cd /new
pivot_root . tmp/.maker-old
umount -l /tmp/.maker-old
rmdir /tmp/.maker-old
cd "$cwd"
PATH=$path
exec "$setpriv" --no-new-privs --inh-caps=-all --ambient-caps=-all --bounding-set=-all -- "$setsid" sh -c "$command"
`;

const hideSteps = (hidden: readonly Hidden[]) =>
  hidden.flatMap((h) => [h.directory ? 'hide-dir' : 'hide-file', h.path]);
const readOnlySteps = (readOnly: readonly ReadOnlyBind[]) =>
  readOnly.flatMap((b) => ['ro-bind', b.source, b.target]);

/** The `unshare` argv that runs SETUP, then `command` in `cwd`, with these steps. */
function unshareArgv(
  network: boolean,
  command: string,
  cwd: string,
  steps: readonly string[],
): string[] {
  return [
    'unshare',
    '--user',
    '--map-root-user',
    '--mount',
    '--pid',
    '--ipc',
    '--uts',
    ...(network ? [] : ['--net']),
    '--fork',
    '--kill-child',
    '--mount-proc',
    '--',
    'sh',
    '-c',
    SETUP,
    'maker-sandbox',
    command,
    cwd,
    ...steps,
  ];
}

/**
 * util-linux `unshare` (Debian's `util-linux`), for machines without bubblewrap or where it does
 * not work: the same confinement built by hand in new namespaces (see SETUP above): the file system
 * read-only, a private `/tmp` and `/dev`, `dir` writable, no network (a check), no capabilities,
 * its own user, process, IPC and UTS namespaces, a new session, everything killed with it. The
 * command runs as root of its own user namespace (the invoking user outside).
 */
export const unshareSandbox: CheckSandbox = {
  name: 'unshare',
  argv: (command, dir, hidden = [], readOnly = []) =>
    unshareArgv(false, command, dir, [
      ...hideSteps(hidden),
      'bind',
      dir,
      dir,
      ...readOnlySteps(readOnly),
      'setenv',
      'HOME',
      dir,
      'setenv',
      'TMPDIR',
      '/tmp',
    ]),
  installArgv: (command, dir, cwd, hidden, readOnly = []) =>
    unshareArgv(true, command, cwd, [
      ...hideSteps(hidden),
      ...readOnlySteps(readOnly),
      'bind',
      dir,
      dir,
    ]),
};
