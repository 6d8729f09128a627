import type { CheckSandbox } from './bubblewrap.js';
import type { Mount, SandboxSpec } from './view.js';

/**
 * The set-up run by `sh` inside util-linux `unshare`'s new user (mapped to root), mount, PID, IPC,
 * UTS and network namespaces, before the command. It builds what bubblewrap builds, on an empty
 * root:
 *
 * 1. A tmpfs on `root` (a fresh empty directory MAKER made) becomes the new root; every path it
 *    is given is taken as is (MAKER resolved them) and must be absolute, without newlines.
 * 2. The steps, in order: `ro-bind S T`, `bind S T`, `tmpfs T SIZE MODE`, `symlink L P`,
 *    `hide-dir P`, `hide-file P`, `dev` (a minimal `/dev`), `proc` (the new process namespace's).
 * 3. Loopback up (so a check may serve on 127.0.0.1 to itself), no further user namespaces, the
 *    new root made read-only and pivoted to, the old one detached.
 * 4. The command runs in its directory, in a new session, with exactly the environment it was
 *    given and no capabilities at all (bounding set emptied, no new privileges), so it cannot
 *    remount anything writable nor unmount what hides a place, though it is root in its namespace.
 *
 * Its own tools (mount, pivot_root, setpriv, …) are found in the system's directories. Any failing
 * step stops it (`set -e`) before the command runs. A place to hide that is gone by the time it is
 * mounted over (a file of /etc removed after /etc was read) has nothing left to hide: it is skipped.
 */
const SETUP = String.raw`set -eu
root=$1; cwd=$2; shift 2
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
setpriv=$(command -v setpriv); setsid=$(command -v setsid); envp=$(command -v env)
mount -t tmpfs -o mode=0755,size=1m maker-root "$root"
target() { mkdir -p "$(dirname "$root$1")"; if [ -d "$2" ]; then mkdir -p "$root$1"; else touch "$root$1"; fi; }
while [ $# -gt 0 ]; do
  step=$1; shift
  case $step in
    --) break ;;
    ro-bind|bind) target "$2" "$1"; mount --bind "$1" "$root$2"
      if [ "$step" = ro-bind ]; then mount -o remount,bind,ro,nosuid,nodev "$root$2"; fi; shift 2 ;;
    tmpfs) mkdir -p "$root$1"; mount -t tmpfs -o "size=$2,mode=$3,nosuid,nodev" maker-tmp "$root$1"; shift 3 ;;
    symlink) mkdir -p "$(dirname "$root$2")"; ln -s "$1" "$root$2"; shift 2 ;;
    hide-dir) if [ -e "$root$1" ]; then mount -t tmpfs -o size=4k,mode=0555,ro maker-hidden "$root$1"; fi; shift ;;
    hide-file) if [ -e "$root$1" ]; then mount --bind /dev/null "$root$1"; fi; shift ;;
    dev) d=$root/dev; mkdir -p "$d"; mount -t tmpfs -o mode=0755,nosuid maker-dev "$d"
      for n in null zero full random urandom tty; do touch "$d/$n"; mount --bind "/dev/$n" "$d/$n"; done
      ln -s /proc/self/fd "$d/fd"; ln -s /proc/self/fd/0 "$d/stdin"
      ln -s /proc/self/fd/1 "$d/stdout"; ln -s /proc/self/fd/2 "$d/stderr"
      mkdir "$d/shm" "$d/pts"; mount -t tmpfs -o mode=1777,nosuid,nodev maker-shm "$d/shm"
      if mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$d/pts" 2>/dev/null; then ln -s pts/ptmx "$d/ptmx"; fi ;;
    proc) mkdir -p "$root/proc"; mount -t proc -o nosuid,nodev,noexec proc "$root/proc" ;;
    *) echo "maker sandbox: unknown step $step" >&2; exit 70 ;;
  esac
done
if command -v ip >/dev/null 2>&1; then ip link set lo up; fi
echo 0 > /proc/sys/user/max_user_namespaces
mkdir "$root/.maker-old"
cd "$root"
pivot_root . .maker-old
umount -l /.maker-old
rmdir /.maker-old
mount -o remount,bind,ro /
cd "$cwd"
exec "$setpriv" --no-new-privs --inh-caps=-all --ambient-caps=-all --bounding-set=-all -- "$setsid" -w "$envp" -i "$@"
`;

/** The steps SETUP reads for `mounts`. */
function steps(mounts: readonly Mount[]): string[] {
  return mounts.flatMap((m): string[] => {
    switch (m.kind) {
      case 'ro-bind':
      case 'bind':
        return [m.kind, m.source, m.target];
      case 'tmpfs':
        return ['tmpfs', m.target, String(m.sizeBytes), m.target === '/tmp' ? '1777' : '0755'];
      case 'symlink':
        return ['symlink', m.link, m.path];
      case 'hide':
        return [m.directory ? 'hide-dir' : 'hide-file', m.path];
      case 'dev':
      case 'proc':
        return [m.kind];
    }
  });
}

/**
 * util-linux `unshare` (Debian's `util-linux`), for machines without bubblewrap or where it does
 * not work: the same confinement built by hand (see SETUP above). `setpriv` gives `unshare` a
 * death signal tied to MAKER and `--kill-child` gives the namespace's first process one tied to
 * `unshare`, so nothing outlives MAKER even after a SIGKILL. The command runs as root of its own
 * user namespace (the invoking user outside).
 */
export function unshareAt(files: {
  readonly unshare: string;
  readonly setpriv: string;
  readonly sh: string;
}): CheckSandbox {
  return {
    name: 'unshare',
    reportsChildPid: false,
    seccomp: false,
    argv: (spec: SandboxSpec, root: string) => [
      files.setpriv,
      '--pdeathsig',
      'KILL',
      '--',
      files.unshare,
      '--user',
      '--map-root-user',
      '--mount',
      '--pid',
      '--ipc',
      '--uts',
      '--net',
      '--fork',
      '--kill-child=KILL',
      '--',
      files.sh,
      '-c',
      SETUP,
      'maker-sandbox',
      root,
      spec.cwd,
      ...steps(spec.mounts),
      '--',
      ...Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
      ...spec.argv,
    ],
  };
}
