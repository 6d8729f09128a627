import type { Driver } from '../../core/view/standing.js';

/** This process, as the driver of a run it is running (`what`: `maker run`, Gemini CLI's server). */
export function thisProcess(what: string): Driver {
  return { who: `${what}, pid ${process.pid}`, sure: true };
}
