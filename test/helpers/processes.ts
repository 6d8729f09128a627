import { readFileSync, readdirSync } from 'node:fs';
import { alive } from './stub-gemini.js';

/** Live processes whose command line names `marker` (a path only one test's processes use). Linux. */
export function processesNaming(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(marker) && alive(Number(entry))) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** Polls `test` every 25 ms until it holds (true) or `ceilingMs` passed (false). */
export async function until(test: () => boolean, ceilingMs: number): Promise<boolean> {
  const end = Date.now() + ceilingMs;
  while (!test()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}
