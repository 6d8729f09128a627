/** The types of `route.mjs` (a script, in JavaScript) for the test that checks it. */
export interface RouteCount {
  rooms: number;
  stops: number;
  returns: number;
}

export interface ReadingRoute {
  units: { ran: number; read: number };
  byFile: RouteCount;
  byFolder: RouteCount;
  files: string[];
  unread: string[];
  stops: string[];
  returning: [string, number][];
}

export function readingRoute(coverageDir: string, root: string, entryFile: string): ReadingRoute;

/** Where each function that ran starts in src/ (0-based lines and columns), by file. */
export function ranFunctions(
  coverageDir: string,
  root: string,
): Map<string, { line: number; column: number }[]>;
