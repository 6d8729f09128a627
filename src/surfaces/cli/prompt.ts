import { createInterface, type Interface } from 'node:readline/promises';

/**
 * A reader of the terminal for maker's questions. readline holds the terminal raw, so Ctrl-C
 * reaches it as a key, and by default it would only close itself (a pending question then fails
 * with an AbortError, or reads as "input ended"). Here Ctrl-C is what it is at a shell: the
 * process's interrupt, which cancels the command (exit 130, the usual message).
 */
export function terminalReader(): Interface {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  return rl;
}

/**
 * Asks one question at the terminal and returns the line typed. The interrupt (`signal`, which
 * Ctrl-C aborts) rejects it, for the command's usual interruption.
 */
export async function askLine(question: string, signal: AbortSignal | undefined): Promise<string> {
  const rl = terminalReader();
  try {
    return await rl.question(question, signal === undefined ? {} : { signal });
  } finally {
    rl.close();
  }
}
