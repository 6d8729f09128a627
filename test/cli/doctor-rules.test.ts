import { describe, expect, it } from 'vitest';
import { RED_FLAG_RULES } from '../../src/core/red-flags/index.js';
import { maker } from '../helpers/cli.js';

describe('maker doctor --rules', () => {
  it('lists every red-flag rule with its scope and description, as text and as JSON', async () => {
    const text = await maker(['doctor', '--rules']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Red-flag rules \(\d+;/);
    for (const rule of RED_FLAG_RULES)
      expect(text.stdout).toMatch(new RegExp(`^  ${rule.scope} +${rule.id} +\\S`, 'm'));
    expect(text.stdout).not.toContain('Model access');

    const json = await maker(['doctor', '--rules', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const { rules } = JSON.parse(json.stdout) as {
      rules: { id: string; scope: string; description: string }[];
    };
    expect(rules).toEqual(
      RED_FLAG_RULES.map(({ id, scope, description }) => ({ id, scope, description })),
    );
    expect(rules.map((r) => r.id)).toEqual(expect.arrayContaining(['truncated', 'llm-review']));
  });
});
