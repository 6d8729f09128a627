import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bareEnv } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** The fields Gemini CLI 0.61's loader reads (ExtensionConfig, MCPServerConfig, ExtensionSetting); nothing else. */
const manifestSchema = z.strictObject({
  name: z.string().regex(/^[a-zA-Z0-9-]+$/),
  version: z.string().regex(/^\d+\.\d+\.\d+(-[\w.]+)?$/),
  description: z.string().min(1),
  contextFileName: z.string(),
  settings: z.array(
    z.strictObject({
      name: z.string(),
      description: z.string(),
      envVar: z.string(),
      sensitive: z.boolean().optional(),
    }),
  ),
  mcpServers: z.record(
    z.string(),
    z.strictObject({
      command: z.string(),
      args: z.array(z.string()),
      cwd: z.string().optional(),
      env: z.record(z.string(), z.string()),
      timeout: z.number(),
    }),
  ),
});

/** The two keys a command TOML may have (FileCommandLoader's schema), read from our simple files. */
function readCommand(path: string): { description?: string; prompt: string } {
  const text = readFileSync(path, 'utf8');
  const keys = [...text.matchAll(/^(\w+)\s*=/gm)].map((m) => m[1]);
  expect(keys.every((k) => k === 'description' || k === 'prompt')).toBe(true);
  const prompt = /^prompt = """\n([\s\S]*?)"""\s*$/m.exec(text)?.[1];
  if (prompt === undefined) throw new Error(`${path}: no prompt`);
  const description = /^description = "([^"]*)"$/m.exec(text)?.[1];
  return { prompt, ...(description === undefined ? {} : { description }) };
}

describe('the Gemini CLI extension', () => {
  const manifest = manifestSchema.parse(JSON.parse(readFileSync('gemini-extension.json', 'utf8')));

  it('has a manifest Gemini CLI accepts, with sensitive settings passed to the server', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(manifest.name).toBe('maker');
    expect(manifest.version).toBe(pkg.version);
    expect(existsSync(manifest.contextFileName)).toBe(true);
    const server = manifest.mcpServers['maker'];
    expect(server?.args).toEqual(['${extensionPath}${/}dist${/}maker-mcp.js']);
    expect(server?.timeout).toBeGreaterThan(240_000); // maker_wait waits up to 240 s
    expect(server?.env['MAKER_WORKSPACE']).toBe('${workspacePath}');
    for (const setting of manifest.settings) {
      expect(setting.sensitive).toBe(true);
      expect(server?.env[setting.envVar]).toBe(`\${${setting.envVar}}`);
    }
    expect(manifest.settings.map((s) => s.envVar).sort()).toEqual([
      'GEMINI_API_KEY',
      'GITHUB_TOKEN',
      'JULES_API_KEY',
    ]);
  });

  it('has /maker (taking idea-to-product, status, resume, answer) and /maker:idea-to-product, /maker:status, /maker:resume, /maker:answer', () => {
    const top = readCommand('commands/maker.toml');
    expect(top.prompt).toContain('{{args}}');
    for (const form of ['idea-to-product', 'status', 'resume', 'answer'])
      expect(top.prompt).toContain(`\`${form}`);
    expect(readdirSync('commands/maker').sort()).toEqual([
      'answer.toml',
      'idea-to-product.toml',
      'resume.toml',
      'status.toml',
    ]);
    for (const file of readdirSync('commands/maker')) {
      const command = readCommand(join('commands/maker', file));
      expect(command.description?.length).toBeLessThanOrEqual(100);
      expect(command.prompt).toContain('{{args}}');
      expect(command.prompt).toMatch(/maker_/);
    }
    for (const file of [
      'commands/maker.toml',
      'commands/maker/idea-to-product.toml',
      'commands/maker/answer.toml',
      'GEMINI.md',
    ])
      expect(readFileSync(file, 'utf8')).toMatch(
        /[Nn]ever answer (a question )?for (them|the person)/,
      );
  });

  it('packages an archive whose server runs without npm install', async () => {
    execFileSync(process.execPath, ['scripts/package.mjs'], { stdio: 'ignore' });
    const installed = await tempDir();
    execFileSync('tar', ['-xzf', 'release/maker-extension.tar.gz', '-C', installed]);
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);
    const workspace = await tempDir();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(installed, 'dist', 'maker-mcp.js')],
      cwd: workspace,
      // As Gemini CLI starts it: an unset setting arrives as its literal reference.
      env: {
        PATH: process.env['PATH'] ?? '',
        MAKER_WORKSPACE: workspace,
        GEMINI_API_KEY: '${GEMINI_API_KEY}',
      },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools).toHaveLength(7);
      const noKey = (await client.callTool({
        name: 'maker_start',
        arguments: { idea: 'x' },
      })) as CallToolResult;
      expect(noKey.isError).toBe(true);
      expect(JSON.stringify(noKey.content)).toMatch(/GEMINI_API_KEY/);
      const sim = (await client.callTool({
        name: 'maker_start',
        arguments: { idea: 'x', worker: 'sim' },
      })) as CallToolResult;
      expect(sim.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('packages an archive whose files run as ES modules on every Node 20 (no package.json above them)', async () => {
    execFileSync(process.execPath, ['scripts/package.mjs'], { stdio: 'ignore' });
    const installed = await tempDir();
    execFileSync('tar', ['-xzf', 'release/maker-extension.tar.gz', '-C', installed]);
    // Node before 20.19 has no module syntax detection: a .js file is CommonJS unless a
    // package.json says otherwise. This flag gives today's Node that behaviour.
    const old = ['--no-experimental-detect-module'];
    const help = execFileSync(
      process.execPath,
      [...old, join(installed, 'dist', 'maker.js'), '--help'],
      { encoding: 'utf8', env: bareEnv() },
    );
    expect(help).toMatch(/^Usage: maker <command>/);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...old, join(installed, 'dist', 'maker-mcp.js')],
      cwd: installed,
      env: { PATH: process.env['PATH'] ?? '', MAKER_WORKSPACE: await tempDir() },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools).toHaveLength(7);
      const sim = (await client.callTool({
        name: 'maker_start',
        arguments: { idea: 'x', worker: 'sim' },
      })) as CallToolResult;
      expect(sim.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
