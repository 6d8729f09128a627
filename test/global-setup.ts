import { execFileSync } from 'node:child_process';

/** Builds dist/ once, so tests that run the bundled CLI test the current sources. */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
