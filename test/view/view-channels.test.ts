import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { StateFile } from '../../src/core/tree/schema.js';
import { RunChannels } from '../../src/surfaces/view/channels.js';
import type { ViewSource } from '../../src/surfaces/view/source.js';
import { useTempDirs } from '../helpers/tmp.js';
import { simRun } from './sim-run.js';

const tempDir = useTempDirs();

/** A source of a fixed state whose `state()` waits, when asked to, until released. */
function gatedSource(dir: string, state: StateFile) {
  let gate: Promise<void> | undefined;
  let release = () => undefined as void;
  let entered = () => undefined as void;
  const source: ViewSource = {
    dir,
    state: async () => {
      if (gate !== undefined) {
        entered();
        await gate;
      }
      return state;
    },
    watch: () => () => undefined,
    answering: () => Promise.resolve({ ok: true, note: '', driver: null }),
    answer: () => Promise.reject(new Error('not here')),
    close: () => Promise.resolve(),
  };
  return {
    source,
    /** From now on `state()` waits; resolves once a call is waiting. */
    hold: () =>
      new Promise<void>((r) => {
        entered = r;
        gate = new Promise<void>((g) => (release = g));
      }),
    release: () => {
      gate = undefined;
      release();
    },
  };
}

/** An HTTP server whose every request becomes an event stream joined to `channels`. */
async function streamServer(channels: RunChannels) {
  const joined: Promise<void>[] = [];
  const closed: Promise<void>[] = [];
  const server = createServer((_req, res: ServerResponse) => {
    closed.push(new Promise((r) => res.on('close', () => r())));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('retry: 1000\n\n');
    joined.push(channels.join('', res, []));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  /** Opens a stream; resolves once its first bytes arrived, with a way to hang up. */
  const connect = () =>
    new Promise<{ hangUp: () => void }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) =>
        res.once('data', () => resolve({ hangUp: () => req.destroy() })),
      );
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
      req.end();
    });
  const close = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return { connect, joined, closed, close };
}

describe('the view’s event streams', () => {
  it('forgets a page that hangs up, even while its snapshot is still being made', async () => {
    const dir = await tempDir();
    const { engine } = await simRun(dir);
    const gated = gatedSource(dir, structuredClone(await engine.state()));
    const channels = new RunChannels(gated.source, (t) => t);
    const server = await streamServer(channels);
    try {
      // A page that connects and hangs up: its stream is dropped.
      const first = await server.connect();
      await server.joined[0];
      expect(channels.streams).toBe(1);
      first.hangUp();
      await server.closed[0];
      expect(channels.streams).toBe(0);

      // A page that hangs up before its snapshot is ready (a reload, a closed tab).
      const waiting = gated.hold();
      const second = await server.connect();
      await waiting;
      second.hangUp();
      await server.closed[1];
      gated.release();
      await server.joined[1];
      expect(channels.streams).toBe(0);
    } finally {
      channels.close();
      await server.close();
    }
  });
});
