/**
 * The seccomp filter bubblewrap loads into every check (`--seccomp FD`): the kernel's keyrings are
 * refused (`add_key`, `request_key`, `keyctl` fail with EPERM). A sandbox keeps the session
 * keyring of whoever started MAKER (namespaces do not separate it), so without this a check could
 * read the keys kept there (a login's, a Kerberos ticket's, a mounted share's). Everything else is
 * allowed. Classic BPF over `struct seccomp_data` (`nr` at 0, `arch` at 4), one program per
 * machine: its own architecture's numbers and those of the 32-bit one it can also run; x32
 * (x86-64's numbers with bit 30 set) is refused whole, and so is any other architecture.
 */

/** The descriptor bubblewrap reads the filter from. */
export const SECCOMP_FD = 4;

interface ArchKeyCalls {
  /** `AUDIT_ARCH_*`. */
  readonly audit: number;
  /** `add_key`, `request_key`, `keyctl`. */
  readonly calls: readonly number[];
  /** Numbers from here on are another ABI's (x32), refused whole. */
  readonly refuseFrom?: number;
}

const ARCHES: Readonly<Record<string, readonly ArchKeyCalls[]>> = {
  x64: [
    { audit: 0xc000003e, calls: [248, 249, 250], refuseFrom: 0x40000000 },
    { audit: 0x40000003, calls: [286, 287, 288] },
  ],
  arm64: [
    { audit: 0xc00000b7, calls: [217, 218, 219] },
    { audit: 0x40000028, calls: [309, 310, 311] },
  ],
};

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const ALLOW = 0x7fff0000;
const REFUSE = 0x00050000 | 1; // SECCOMP_RET_ERRNO | EPERM

type Insn = [code: number, jt: number, jf: number, k: number];

/**
 * The filter for `arch` (Node's `process.arch`) as bubblewrap reads it, or undefined for an
 * architecture whose numbers MAKER does not know (there the keyrings stay reachable).
 */
export function keyringFilter(arch: string = process.arch): Buffer | undefined {
  const arches = ARCHES[arch];
  if (arches === undefined) return undefined;
  const program: Insn[] = [];
  // Each arch's block, then REFUSE at the end (`refuse` marks jumps to fill in).
  const refuse: number[] = [];
  for (const a of arches) {
    const block: Insn[] = [[LD_W_ABS, 0, 0, 4]];
    const checks: Insn[] = [[LD_W_ABS, 0, 0, 0]];
    if (a.refuseFrom !== undefined) checks.push([JGE_K, 0, 0, a.refuseFrom]);
    for (const call of a.calls) checks.push([JEQ_K, 0, 0, call]);
    checks.push([RET_K, 0, 0, ALLOW]);
    // Not this arch: skip its checks to the next block.
    block.push([JEQ_K, 0, checks.length, a.audit]);
    const at = program.length + block.length;
    program.push(...block, ...checks);
    checks.forEach(([code], i) => {
      if (code === JEQ_K || code === JGE_K) refuse.push(at + i);
    });
  }
  program.push([RET_K, 0, 0, REFUSE]);
  const end = program.length - 1;
  for (const i of refuse) {
    const insn = program[i] as Insn;
    insn[1] = end - i - 1;
  }
  const buffer = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    buffer.writeUInt16LE(code, i * 8);
    buffer.writeUInt8(jt, i * 8 + 2);
    buffer.writeUInt8(jf, i * 8 + 3);
    buffer.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return buffer;
}
