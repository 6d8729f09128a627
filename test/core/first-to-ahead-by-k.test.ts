import { describe, expect, it } from 'vitest';
import { firstToAheadByK, voteFirstToAheadByK } from '../../src/core/voting/first-to-ahead-by-k.js';
import type { DrawRequest, Sample, VoteEvent } from '../../src/core/voting/types.js';
import { AbortedError, UsageError } from '../../src/core/errors.js';
import { uniform } from '../../src/core/random.js';

const FLAG = '!';
/** A sampler that answers draw i with script[i]; '!' is a red-flagged sample. Records every request. */
function scripted(script: readonly string[]) {
  const requests: DrawRequest[] = [];
  const sample = (request: DrawRequest): Sample<string> => {
    requests.push(request);
    const answer = script[request.draw];
    if (answer === undefined) throw new Error(`script exhausted at draw ${request.draw}`);
    return answer === FLAG
      ? { ok: false, flags: [{ rule: 'test', message: 'flagged' }] }
      : { ok: true, value: answer };
  };
  return { sample, requests };
}

/** The paper's do_voting, one draw at a time, as the yardstick. */
function sequentialVote(script: readonly string[], k: number) {
  const counts = new Map<string, number>();
  for (let draw = 0; draw < script.length; draw++) {
    const y = script[draw] as string;
    if (y === FLAG) continue;
    counts.set(y, (counts.get(y) ?? 0) + 1);
    let alt = 0;
    for (const [z, n] of counts) if (z !== y && n > alt) alt = n;
    if ((counts.get(y) as number) >= alt + k) return { winner: y, draws: draw + 1 };
  }
  return undefined;
}

const key = (s: string) => s;

describe('firstToAheadByK', () => {
  it('decides after exactly k draws, in one round, when the first k agree', async () => {
    const { sample, requests } = scripted(['A', 'A', 'A']);
    const result = await firstToAheadByK({ k: 3, sample, keyOf: key });
    expect(result).toMatchObject({
      status: 'decided',
      winner: 'A',
      votes: 3,
      runnerUpVotes: 0,
      draws: 3,
      rounds: 1,
    });
    expect(requests.map((r) => r.round)).toEqual([1, 1, 1]);
  });

  it('needs a margin of k over the runner-up, not k votes', async () => {
    const { sample } = scripted(['A', 'B', 'A', 'B', 'A', 'A', 'A', 'A']);
    const result = await firstToAheadByK({ k: 3, sample, keyOf: key });
    expect(result).toMatchObject({
      status: 'decided',
      winner: 'A',
      votes: 5,
      runnerUpVotes: 2,
      draws: 7,
    });
  });

  it('tops up with exactly k − lead draws per round', async () => {
    // k = 3: round 1 draws 3 (A B A, lead 1) → round 2 draws 2 (A B, lead 1) → round 3 draws 2 (A A).
    const { sample, requests } = scripted(['A', 'B', 'A', 'A', 'B', 'A', 'A']);
    const result = await firstToAheadByK({ k: 3, sample, keyOf: key });
    expect(result.status).toBe('decided');
    expect(requests.map((r) => r.round)).toEqual([1, 1, 1, 2, 2, 3, 3]);
    expect(result.rounds).toBe(3);
  });

  it('discards red-flagged samples: they cost a draw and never vote', async () => {
    const { sample } = scripted(['A', FLAG, 'A', FLAG, 'A']);
    const result = await firstToAheadByK({ k: 3, sample, keyOf: key });
    expect(result).toMatchObject({
      status: 'decided',
      winner: 'A',
      votes: 3,
      draws: 5,
      validDraws: 3,
      flaggedDraws: 2,
    });
  });

  it('samples the first draw at temperature 0 and every later one, redraws included, at 0.1', async () => {
    const { sample, requests } = scripted([FLAG, 'A', 'A', 'A']);
    await firstToAheadByK({ k: 3, sample, keyOf: key });
    expect(requests.map((r) => r.temperature)).toEqual([0, 0.1, 0.1, 0.1]);
    const custom = scripted(['A', 'A']);
    await firstToAheadByK({
      k: 2,
      sample: custom.sample,
      keyOf: key,
      temperatures: { first: 0.2, rest: 0.7 },
    });
    expect(custom.requests.map((r) => r.temperature)).toEqual([0.2, 0.7]);
  });

  it('groups samples by their equivalence key', async () => {
    const { sample } = scripted(['a', ' A', 'A ', 'a']);
    const result = await firstToAheadByK({ k: 3, sample, keyOf: (s) => s.trim().toLowerCase() });
    expect(result).toMatchObject({ status: 'decided', votes: 3, draws: 3, winner: 'a', key: 'a' });
  });

  it('draws a wider first batch when asked (2k − 1), and may then overshoot', async () => {
    const { sample, requests } = scripted(['A', 'A', 'A', 'A', 'A']);
    const result = await firstToAheadByK({ k: 3, sample, keyOf: key, initialBatch: 5 });
    expect(result).toMatchObject({ status: 'decided', votes: 5, draws: 5, rounds: 1 });
    expect(requests).toHaveLength(5);
  });

  it('returns undecided, with the standings, when the draw cap is reached', async () => {
    const { sample } = scripted(['A', 'B', 'A', 'B', 'C', 'A', 'B']);
    const result = await firstToAheadByK({ k: 3, sample, keyOf: key, maxDraws: 7 });
    expect(result.status).toBe('undecided');
    if (result.status !== 'undecided') return;
    expect(result).toMatchObject({ reason: 'max-draws', draws: 7, runnerUpVotes: 3 });
    expect(result.leader).toMatchObject({ key: 'A', votes: 3 });
    expect(result.tally.map((e) => [e.key, e.votes])).toEqual([
      ['A', 3],
      ['B', 3],
      ['C', 1],
    ]);
  });

  it('never draws past the cap even mid top-up', async () => {
    const { sample, requests } = scripted(['A', 'B', 'C', 'A', 'B']);
    const result = await firstToAheadByK({ k: 3, sample, keyOf: key, maxDraws: 4 });
    expect(result.status).toBe('undecided');
    expect(requests).toHaveLength(4);
  });

  it('gives the same winner and the same number of draws as sequential voting, on 2,000 random scripts', async () => {
    for (let trial = 0; trial < 2000; trial++) {
      const k = 1 + Math.floor(uniform(7, trial, 0) * 4);
      const script = Array.from({ length: 400 }, (_, i) => {
        const u = uniform(7, trial, i + 1);
        return u < 0.1 ? FLAG : u < 0.6 ? 'A' : u < 0.85 ? 'B' : 'C';
      });
      const expected = sequentialVote(script, k);
      const result = await firstToAheadByK({
        k,
        sample: scripted(script).sample,
        keyOf: key,
        maxDraws: 400,
      });
      if (expected === undefined) {
        expect(result.status).toBe('undecided');
      } else {
        expect(result.status === 'decided' && [result.winner, result.draws]).toEqual([
          expected.winner,
          expected.draws,
        ]);
      }
    }
  });

  it('draws a batch in parallel with an async sampler', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const sample = async (): Promise<Sample<string>> => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      return { ok: true, value: 'A' };
    };
    const result = await firstToAheadByK({ k: 4, sample, keyOf: key });
    expect(result.status).toBe('decided');
    expect(maxInFlight).toBe(4);
  });

  it('emits vote-start, one event per draw in draw order, and vote-end; a throwing observer changes nothing', async () => {
    const events: VoteEvent<string>[] = [];
    const { sample } = scripted(['A', FLAG, 'B', 'A', 'A', 'A']);
    const result = await firstToAheadByK({
      k: 2,
      sample,
      keyOf: key,
      onEvent: (event) => {
        events.push(event);
        throw new Error('observer bug');
      },
    });
    expect(events.map((e) => e.type)).toEqual([
      'vote-start',
      'sample-drawn',
      'sample-flagged',
      'sample-drawn',
      'sample-drawn',
      'sample-drawn',
      'vote-end',
    ]);
    expect(events.at(-1)).toEqual({ type: 'vote-end', result });
  });

  it('rejects with AbortedError when the signal aborts mid-batch, and passes the signal to the sampler', async () => {
    const controller = new AbortController();
    const seen: (AbortSignal | undefined)[] = [];
    const sample = (request: DrawRequest) => {
      seen.push(request.signal);
      return new Promise<Sample<string>>(() => undefined); // never settles on its own
    };
    const vote = firstToAheadByK({ k: 2, sample, keyOf: key, signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(vote).rejects.toBeInstanceOf(AbortedError);
    expect(seen).toEqual([controller.signal, controller.signal]);
    const already = firstToAheadByK({ k: 2, sample, keyOf: key, signal: AbortSignal.abort() });
    await expect(already).rejects.toBeInstanceOf(AbortedError);
  });

  it('passes a failing sampler’s error through', async () => {
    const sample = () => Promise.reject(new Error('service down'));
    await expect(firstToAheadByK({ k: 2, sample, keyOf: key })).rejects.toThrow('service down');
  });

  it('rejects impossible parameters with a usage error', async () => {
    const { sample } = scripted(['A']);
    await expect(firstToAheadByK({ k: 0, sample, keyOf: key })).rejects.toBeInstanceOf(UsageError);
    await expect(firstToAheadByK({ k: 2.5, sample, keyOf: key })).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(
      firstToAheadByK({ k: 2, sample, keyOf: key, initialBatch: 0 }),
    ).rejects.toBeInstanceOf(UsageError);
    await expect(firstToAheadByK({ k: 2, sample, keyOf: key, maxDraws: 0 })).rejects.toBeInstanceOf(
      UsageError,
    );
  });

  it('settles without a promise while every draw is synchronous, and with one from the first asynchronous draw', async () => {
    const script = ['A', 'B', 'A', FLAG, 'A', 'A'];
    const sync = voteFirstToAheadByK({ k: 2, sample: scripted(script).sample, keyOf: key });
    expect(sync).not.toBeInstanceOf(Promise);
    const viaPromise = await firstToAheadByK({ k: 2, sample: scripted(script).sample, keyOf: key });
    expect(sync).toEqual(viaPromise);

    const { sample } = scripted(script);
    const lateAsync = (request: DrawRequest) =>
      request.round === 1 ? sample(request) : Promise.resolve(sample(request));
    const mixed = voteFirstToAheadByK({ k: 2, sample: lateAsync, keyOf: key });
    expect(mixed).toBeInstanceOf(Promise);
    expect(await mixed).toEqual(viaPromise);
  });

  it('keeps counting right past many distinct answers', async () => {
    // Twenty distinct answers, then one of them pulls ahead.
    const script = [...Array.from({ length: 20 }, (_, i) => `x${i}`), 'x7', 'x7', 'x7'];
    const result = await firstToAheadByK({
      k: 3,
      sample: scripted(script).sample,
      keyOf: key,
      initialBatch: 20,
    });
    expect(result).toMatchObject({ status: 'decided', winner: 'x7', votes: 4, draws: 23 });
    expect(result.tally).toHaveLength(20);
    expect(result.tally[0]).toMatchObject({ key: 'x7', votes: 4 });
  });
});
