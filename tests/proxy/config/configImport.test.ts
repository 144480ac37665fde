// Snippets pasted from other MCP clients: Claude Desktop, Cursor and VS Code shapes, what the
// preview says would be added and what is skipped (with the CLI's own messages), and that
// applying writes exactly the previewed entries.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planImport } from '../../../src/proxy/config/configImport.js';
import { ConfigStore } from '../../../src/proxy/config/configStore.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const CLAUDE = JSON.stringify({
  mcpServers: {
    memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
    github: {
      command: 'docker',
      args: ['run', '-i', 'ghcr.io/github/github-mcp-server'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secretsecretsecret' },
    },
  },
  globalShortcut: 'Ctrl+Space',
});

const VSCODE = `{
  // VS Code's mcp.json is JSONC
  "inputs": [{ "type": "promptString", "id": "api-key", "description": "Key", "password": true }],
  "servers": {
    "fetch": { "type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"], "env": { "HOME_DIR": "\${env:HOME}" } },
    "keyed": { "type": "http", "url": "https://api.example.com/mcp", "headers": { "Authorization": "Bearer \${input:api-key}" } },
    "remote": { "type": "http", "url": "https://mcp.example.com/mcp?token=abc123" },
    "withfile": { "command": "node", "args": ["s.js"], "envFile": "\${workspaceFolder}/.env" },
  },
}`;

describe('planImport', () => {
  it('reads a Claude Desktop config: every server added, other keys ignored, no secret in the preview', () => {
    const plan = planImport(CLAUDE, {}, {});
    expect(plan.preview).toMatchObject({ ok: true, format: 'mcpServers (Claude Desktop, Cursor)', skip: [] });
    expect(plan.preview.add).toEqual([
      { id: 'memory', kind: 'stdio', summary: 'npx (2 arguments)', notes: [] },
      // Named (never quoted) for the offer to move it to the secret store.
      {
        id: 'github',
        kind: 'stdio',
        summary: 'docker (3 arguments)',
        notes: [],
        secrets: ['GITHUB_PERSONAL_ACCESS_TOKEN'],
      },
    ]);
    expect(JSON.stringify(plan.preview)).not.toContain('ghp_');
    expect(plan.entries.github).toEqual(JSON.parse(CLAUDE).mcpServers.github);
  });

  it('reads VS Code mcp.json (JSONC): ${env:X} becomes ${X}; ${input:..} and ${workspaceFolder} are skipped with a reason; url secrets redacted', () => {
    const plan = planImport(VSCODE, {}, { HOME: '/home/me' });
    expect(plan.preview.format).toBe('VS Code mcp.json');
    expect(plan.preview.add.map((a) => a.id)).toEqual(['fetch', 'remote']);
    expect(plan.entries.fetch).toEqual({
      type: 'stdio',
      command: 'uvx',
      args: ['mcp-server-fetch'],
      env: { HOME_DIR: '${HOME}' },
    });
    expect(plan.preview.add[1]!.summary).not.toContain('abc123');
    expect(plan.preview.skip).toEqual([
      { id: 'keyed', reason: 'uses ${input:...}, which only the other app can fill in: add it with the form instead' },
      {
        id: 'withfile',
        reason: 'uses ${workspaceFolder}, which only the other app can fill in: add it with the form instead',
      },
    ]);
  });

  it('skips existing names, invalid names and entries the CLI refuses, with its message', () => {
    const text = JSON.stringify({
      mcpServers: {
        memory: { command: 'x' },
        'bad name': { command: 'x' },
        both: { command: 'x', url: 'http://a' },
        env: { command: 'x', env: { A: 1 } },
      },
    });
    const plan = planImport(text, { memory: { command: 'x' } }, {});
    expect(plan.preview.add).toEqual([]);
    expect(plan.preview.skip).toEqual([
      { id: 'memory', reason: 'a server with this name is already in your config' },
      { id: 'bad name', reason: expect.stringContaining('invalid name') },
      {
        id: 'both',
        reason: 'server "both": has both command and url: a server is either stdio (command) or remote (url)',
      },
      { id: 'env', reason: 'server "env": env.A must be a string (quote numbers and booleans)' },
    ]);
  });

  it('accepts a bare servers map and a pasted "id": {...} fragment; says clearly what is not a snippet', () => {
    expect(planImport('{"a": {"command": "x"}}', {}, {}).preview.add.map((a) => a.id)).toEqual(['a']);
    expect(planImport('"a": {"command": "x"},', {}, {}).preview.add.map((a) => a.id)).toEqual(['a']);
    expect(planImport('not json', {}, {}).preview).toEqual({
      ok: false,
      add: [],
      skip: [],
      error: 'The snippet is not valid JSON.',
    });
    expect(planImport('{"x": 1}', {}, {}).preview.error).toContain('No servers found');
    expect(planImport('   ', {}, {}).preview.error).toBe('Paste a snippet first.');
  });

  it('reads comments and trailing commas as JSONC and leaves strings alone: //, /* and ",]" inside them are kept', () => {
    const text =
      '{"mcpServers": {"s": {"command": "x", "args": ["http://a//b", "/*x*/", "keep,]this", "keep,}that",], /* c */}, // end\n}}';
    expect(planImport(text, {}, {}).entries.s).toEqual({
      command: 'x',
      args: ['http://a//b', '/*x*/', 'keep,]this', 'keep,}that'],
    });
  });

  it('refuses a snippet nested deeper than the limit with a message naming it, however deep', () => {
    for (const depth of [101, 5_000, 100_000]) {
      const text = `{"mcpServers": {"s": {"command": "x", "x_deep": ${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
      expect(planImport(text, {}, {}).preview).toEqual({
        ok: false,
        add: [],
        skip: [],
        error: 'The snippet nests arrays and objects more than 100 levels deep (the limit is 100).',
      });
    }
    const ok = `{"mcpServers": {"s": {"command": "x", "x_deep": ${'['.repeat(90)}${']'.repeat(90)}}}}`;
    expect(planImport(ok, {}, {}).preview.add.map((a) => a.id)).toEqual(['s']);
  });
});

describe('ConfigStore import', () => {
  it('applies exactly what the preview announced, after the existing entries', () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-import-'));
    dirs.push(dir);
    const path = join(dir, 'mcp.json');
    writeFileSync(path, JSON.stringify({ mcpServers: { memory: { command: 'keep-me' } } }));
    const store = new ConfigStore(path, {});
    const preview = store.previewImport(CLAUDE);
    expect(preview.add.map((a) => a.id)).toEqual(['github']);
    expect(preview.skip).toEqual([{ id: 'memory', reason: 'a server with this name is already in your config' }]);
    expect(store.apply({ op: 'import', text: CLAUDE }).ok).toBe(true);
    const servers = JSON.parse(readFileSync(path, 'utf8')).mcpServers;
    expect(Object.keys(servers)).toEqual(['memory', 'github']);
    expect(servers.memory).toEqual({ command: 'keep-me' });
    expect(store.apply({ op: 'import', text: CLAUDE })).toMatchObject({
      ok: false,
      error: 'nothing to import: every server in the snippet is skipped',
    });
  });
});
