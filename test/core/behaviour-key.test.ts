import { describe, expect, it } from 'vitest';
import {
  behaviourKey,
  isBehaviourKey,
  normalizeProbeOutput,
  probeDigest,
} from '../../src/core/voting/behaviour.js';

describe('behaviour keys (issue #36)', () => {
  it('equal output is one key, whatever the layout, colours or stack frames', () => {
    const a = behaviourKey(
      { ok: true, output: 'add(2, 3) -> 5\r\n\n  \u001b[32mok\u001b[0m\n' },
      undefined,
    );
    const b = behaviourKey(
      { ok: true, output: 'add(2, 3) -> 5\nok\n    at add (/checkout/add.mjs:2:3)\n' },
      undefined,
    );
    expect(a).toEqual(b);
    expect('key' in a && isBehaviourKey(a.key)).toBe(true);
    expect(behaviourKey({ ok: true, output: 'add(2, 3) -> -1' }, undefined)).not.toEqual(a);
  });

  it('a run that failed, printed nothing or printed what it prints without the code keys nothing', () => {
    expect(behaviourKey({ ok: false, output: 'SyntaxError: x' }, undefined)).toHaveProperty(
      'unused',
    );
    expect(behaviourKey({ ok: true, output: ' \n\n' }, undefined)).toHaveProperty('unused');
    const base = probeDigest('probe ran\n');
    expect(behaviourKey({ ok: true, output: 'probe ran' }, base)).toHaveProperty('unused');
    expect(normalizeProbeOutput('Node.js v20.1.0\nx')).toBe('x');
  });
});
