import { execFileSync } from 'node:child_process';
import { afterEach } from 'vitest';
import { GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import type { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import type { RunConfig } from '../../src/core/tree/schema.js';
import type { EngineEvent } from '../../src/engine/events.js';
import { LlmPlanner } from '../../src/engine/models/llm-planner.js';
import { LlmWorker } from '../../src/engine/models/llm-worker.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import {
  startFakeGemini,
  type FakeGemini,
  type FakeGeminiResponder,
} from '../../src/offline/fake-gemini.js';
import { baseConfig } from './engine.js';

/** A run whose planner and worker are Gemini (gemini-2.5-flash), minimal at depth 1. */
export const geminiConfig: RunConfig = {
  ...baseConfig,
  worker: 'gemini',
  planner: 'gemini',
  model: 'gemini-2.5-flash',
  maxDepth: 1,
};

/** A fake Gemini server per call, answered by `respond`, closed after the test that started it. */
export function useFakeGemini(): (respond: FakeGeminiResponder) => Promise<FakeGemini> {
  const started: FakeGemini[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((fake) => fake.close()));
  });
  return async (respond) => {
    const fake = await startFakeGemini(respond);
    started.push(fake);
    return fake;
  };
}

export interface GeminiEngineOptions {
  /** Receives every event, as the JSONL journal does. */
  readonly journal?: (event: EngineEvent) => void;
  /** Characters of repository context the worker is given. */
  readonly contextChars?: number;
}

/**
 * An engine whose planner and worker speak to `fake` through the real Gemini client, on a git
 * workspace in `dir` with its state file there.
 */
export function geminiEngine(
  dir: string,
  workspace: GitWorkspace,
  fake: FakeGemini,
  options: GeminiEngineOptions = {},
): MakerEngine {
  const model = new GeminiModel({
    model: 'gemini-2.5-flash',
    apiKey: ['AIza', 'K'.repeat(35)].join(''),
    baseUrl: fake.baseUrl,
  });
  const worker = new LlmWorker(
    model,
    workspace,
    options.contextChars === undefined ? {} : { contextChars: options.contextChars },
  );
  return new MakerEngine({
    workspace,
    roles: { planner: new LlmPlanner(model), worker },
    store: makerStateFile(dir),
    ...(options.journal === undefined ? {} : { journal: options.journal }),
  });
}

/** git in `dir`, its output trimmed. */
export const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
