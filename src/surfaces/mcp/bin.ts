import { CappedStdioServerTransport } from './capped-stdio.js';
import { LazyRuns } from './lazy-runs.js';
import { createMakerServer } from './server.js';

declare const MAKER_VERSION: string | undefined;

// stdout carries the MCP protocol alone: everything else goes to stderr.
// The run manager (and with it the engine, git, GitHub, Jules and Gemini) is imported on the first
// tool call that needs it, so starting the server and listing its tools compile none of them.
const runs = new LazyRuns(
  () =>
    import('./run-manager.js').then(
      ({ RunManager }) =>
        new RunManager({
          workspaceDir: process.env['MAKER_WORKSPACE'] || process.cwd(),
          env: process.env,
        }),
    ),
  process.env,
);
const server = createMakerServer(
  runs,
  typeof MAKER_VERSION === 'string' ? MAKER_VERSION : '0.0.0-dev',
);
const shutdown = async () => {
  await runs.close().catch(() => undefined);
  await server.close().catch(() => undefined);
  process.exit(0);
};
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
process.stdin.once('end', () => void shutdown());
await server.connect(new CappedStdioServerTransport());
