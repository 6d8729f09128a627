import { answerTool } from './answer.js';
import { cancelTool } from './cancel.js';
import { estimateTool } from './estimate.js';
import { resumeTool } from './resume.js';
import { startTool } from './start.js';
import { statusTool } from './status.js';
import type { AnyMakerTool } from './tool.js';
import { waitTool } from './wait.js';

/**
 * Every tool the server offers, in the order `tools/list` lists them. A new tool is its file here
 * and one line below (and, when it needs a new operation on the runs, that method in run-manager.ts
 * and lazy-runs.ts).
 */
export const TOOLS: readonly AnyMakerTool[] = [
  startTool,
  waitTool,
  statusTool,
  answerTool,
  resumeTool,
  cancelTool,
  estimateTool,
];
