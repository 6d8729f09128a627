import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach } from 'vitest';
import { CLI } from './cli.js';

/** util-linux `script`: gives a command a pseudo-terminal, as a person's shell does. */
export const SCRIPT = '/usr/bin/script';
export const hasScript = existsSync(SCRIPT);

/** `maker <args>` at a pseudo-terminal: what it drew so far, keys typed into it, its exit. */
export interface Terminal {
  /** Everything the terminal showed (stdout and stderr, as a person sees them). */
  screen(): string;
  /**
   * The first match of `pattern` in what was shown since the last `seen` matched (so a question
   * asked twice is waited for twice); rejects if the program ends first or after `ms`.
   */
  seen(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  /** Types keys (`'\x03'` is Ctrl-C: the terminal turns it into SIGINT unless raw). */
  type(keys: string): void;
  /** The exit status (script -e passes the program's own; 128 + n for a signal n). */
  readonly exited: Promise<number | null>;
}

/**
 * Starts terminals; each is stopped by its own handle after the test that started it, even when
 * the test failed half-way.
 */
export function useTerminals(): (
  args: readonly string[],
  options?: { cwd?: string; env?: Record<string, string> },
) => Terminal {
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });
  return (args, options = {}) => {
    const command = [process.execPath, CLI, ...args]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    // exec: the CLI is the terminal's only process, so Ctrl-C reaches it alone (a shell left
    // waiting on it would die of the same SIGINT and turn the CLI's own exit status into 130).
    const child = spawn(SCRIPT, ['-qfec', `exec ${command}`, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        SHELL: '/bin/sh',
        TERM: 'xterm',
        ...options.env,
      },
    });
    started.push(child);
    let screen = '';
    let from = 0;
    const listeners = new Set<() => void>();
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      screen += c;
      for (const l of [...listeners]) l();
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    return {
      screen: () => screen,
      seen: (pattern, ms = 60_000) =>
        new Promise((resolve, reject) => {
          const done = () => {
            listeners.delete(look);
            clearTimeout(timer);
          };
          const look = () => {
            const m = pattern.exec(screen.slice(from));
            if (m === null) return;
            from += m.index + m[0].length;
            done();
            resolve(m);
          };
          const timer = setTimeout(() => {
            done();
            reject(new Error(`not shown within ${ms} ms: ${pattern}\n${screen}`));
          }, ms);
          listeners.add(look);
          void exited.then(() => {
            look();
            if (listeners.has(look)) {
              done();
              reject(new Error(`ended before showing ${pattern}:\n${screen}`));
            }
          });
          look();
        }),
      type: (keys) => child.stdin.write(keys),
      exited,
    };
  };
}
