import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

/** Debian's Chromium (`scripts/install-chromium.sh` installs it). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Headless, no sandbox (containers), and nothing that reaches the network by itself. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

export function chromiumInstalled(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export interface Chromium {
  readonly context: BrowserContext;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/**
 * Headless Chromium driven by playwright-core (a development dependency, loaded here only), with
 * a fresh profile directory.
 */
export async function launchChromium(
  viewport: { width: number; height: number } = { width: 1400, height: 900 },
): Promise<Chromium> {
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(join(tmpdir(), 'maker-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [...CHROMIUM_FLAGS],
      viewport,
    });
    return {
      context,
      close: async () => {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
}
