import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, join, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  loadConfig,
  parseConfig,
  type ProxyConfig,
  type RemoteEntry,
  type StdioEntry,
} from '../../../src/proxy/config/config.js';
import { toolTimeoutFor } from '../../../src/proxy/config/toolFilter.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-config-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return path;
}

function thrown(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const env = { GITHUB_TOKEN: 'ghp_realtoken1234', HOME: '/home/me', API_HOST: 'api.example.com' };

/** As written by Claude Desktop / Cursor users, plus our own extensions. */
const claudeDesktopSample = {
  globalShortcut: 'Ctrl+Space',
  mcpServers: {
    filesystem: {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '${HOME}/Desktop', '${HOME}/Downloads'],
    },
    github: {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_TOKEN}' },
      alwaysAllow: ['search_code'],
    },
    remote: { url: 'https://${API_HOST}/mcp', headers: { 'X-Team': 'core' } },
    legacy: { type: 'sse', url: 'http://127.0.0.1:9000/sse', disabled: true },
  },
};

describe('loadConfig: input forms', () => {
  it('reads a claude_desktop_config.json-style file and inline JSON to the same result', () => {
    const path = writeConfig('claude_desktop_config.json', claudeDesktopSample);
    const fromFile = loadConfig(path, { env });
    const fromInline = loadConfig(JSON.stringify(claudeDesktopSample), { env });
    expect(fromInline).toEqual(fromFile);
    expect(fromFile.servers.map((s) => s.id)).toEqual(['filesystem', 'github', 'remote', 'legacy']);

    const fs = fromFile.servers[0] as StdioEntry;
    expect(fs).toEqual({
      id: 'filesystem',
      kind: 'stdio',
      disabled: false,
      timeoutMs: 60_000,
      connectionTimeoutMs: 60_000,
      toolFilter: {},
      toolTimeouts: {},
      persistent: true,
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/Desktop', '/home/me/Downloads'],
      env: {},
      // The launch as written, its references unexpanded: what tool pinning keys the server's pins by.
      written: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '${HOME}/Desktop', '${HOME}/Downloads'],
      },
    });
    expect((fromFile.servers[1] as StdioEntry).env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_realtoken1234' });
    const remote = fromFile.servers[2] as RemoteEntry;
    expect(remote).toMatchObject({
      kind: 'remote',
      type: 'auto',
      url: 'https://api.example.com/mcp',
      connectionTimeoutMs: 20_000,
      written: { url: 'https://${API_HOST}/mcp' },
    });
    expect(remote.headers).toEqual({ 'X-Team': 'core' });
    expect(fromFile.servers[3]).toMatchObject({ kind: 'remote', type: 'sse', disabled: true });
    expect(fromFile).toMatchObject({ toolNaming: 'prefixed', readyTimeoutMs: 30_000, toolTimeouts: {} });
  });

  it('treats input starting with { after trimming as JSON, and anything else as a path', () => {
    const cfg = loadConfig('  \n {"mcpServers": {"a": {"command": "node"}}}  ');
    expect(cfg.servers[0].id).toBe('a');
    // A relative path resolves against opts.cwd; a UTF-8 BOM is tolerated.
    mkdirSync(join(dir, 'sub'));
    writeConfig('sub/mcp.json', '\uFEFF{"mcpServers": {"b": {"url": "http://localhost:1/mcp"}}}');
    expect(loadConfig('sub/mcp.json', { cwd: dir }).servers[0].id).toBe('b');
    expect(loadConfig(` ${join(dir, 'sub/mcp.json')} `).servers[0].id).toBe('b');
  });

  it('names the missing file, an unreadable path, and empty input', () => {
    const missing = join(dir, 'nope.json');
    const err = thrown(() => loadConfig(missing));
    expect(err.message).toContain(`config file not found: ${missing}`);
    expect(thrown(() => loadConfig('rel/nope.json', { cwd: dir })).message).toContain(join(dir, 'rel/nope.json'));
    expect(thrown(() => loadConfig(dir)).message).toContain(`config path is a directory, not a file: ${dir}`);
    expect(thrown(() => loadConfig('   ')).message).toContain('config is empty');
  });

  it('reports invalid JSON with a position but without quoting the text', () => {
    const text = '{"mcpServers": {"a": {"command": "x", "env": {"K": "hunter2-secret"}}} trailing';
    const inline = thrown(() => loadConfig(text));
    expect(inline.message).toContain('inline JSON is not valid JSON');
    expect(inline.message).not.toContain('hunter2-secret');
    // A comment before the error: the position is still the file's own line and column.
    const path = writeConfig(
      'bad.json',
      '{\n  // servers\n  "mcpServers": {\n    "a": {"command" "hunter2-secret"}\n  }\n}',
    );
    const fromFile = thrown(() => loadConfig(path));
    expect(fromFile.message).toContain(path);
    expect(fromFile.message).toContain('syntax error at line 4, column 21');
    expect(fromFile.message).not.toContain('hunter2-secret');
    const truncated = thrown(() => loadConfig('{"mcpServers": {"a": "hunter2-secret'));
    expect(truncated.message).not.toContain('hunter2-secret');
  });

  it('prefixes top-level errors from a file with its path', () => {
    const path = writeConfig('mcp.json', {
      toolNaming: 'short',
      mcpServers: { fs: { command: 'npx', args: ['-y', 42] } },
    });
    const err = thrown(() => loadConfig(path));
    expect(err.message).toContain(path);
    expect(err.issues).toEqual([
      'toolNaming must be one of "prefixed", "original"',
      'server "fs": args[1] must be a string',
    ]);
  });
});

describe('loadConfig: a bad entry is set aside, the others load', () => {
  it('returns the valid entries and each bad one with its issues, kind and role', () => {
    const path = writeConfig('mcp.json', {
      mcpServers: {
        ok: { command: 'node' },
        args: { command: 'npx', args: ['-y', 42] },
        remote: { type: 'sse', url: '${NOPE}/sse' },
        'bad id': { command: 'node' },
        perSession: { command: 7, persistent: false, disabled: true },
      },
    });
    const cfg = loadConfig(path, { env: {} });
    expect(cfg.servers.map((s) => s.id)).toEqual(['ok']);
    expect(cfg.invalid).toEqual([
      {
        id: 'args',
        issues: ['server "args": args[1] must be a string'],
        reason: 'invalid config entry: args[1] must be a string',
        transport: 'stdio',
        disabled: false,
        persistent: true,
      },
      {
        id: 'remote',
        issues: [
          'server "remote": url references ${NOPE}, but that variable is not set (write ${NOPE:-default} to give a fallback)',
        ],
        reason:
          'invalid config entry: url references ${NOPE}, but that variable is not set (write ${NOPE:-default} to give a fallback)',
        transport: 'sse',
        disabled: false,
        persistent: true,
      },
      expect.objectContaining({
        id: 'bad id',
        transport: 'stdio',
        reason: expect.stringMatching(/^invalid config entry: has an invalid id/),
      }),
      expect.objectContaining({
        id: 'perSession',
        reason: 'invalid config entry: command must be a string',
        disabled: true,
        persistent: false,
      }),
    ]);
  });

  it('parseConfig, the check of an edit, still refuses any bad entry', () => {
    const err = thrown(() => parseConfig({ mcpServers: { ok: { command: 'node' }, bad: { command: 7 } } }));
    expect(err.issues).toEqual(['server "bad": command must be a string']);
    expect(parseConfig({ mcpServers: { ok: { command: 'node' } } })).not.toHaveProperty('invalid');
  });
});

describe('loadConfig: configs written for other clients', () => {
  it("reads VS Code's mcp.json: servers, inputs, type stdio/http/sse, comments and trailing commas", () => {
    mkdirSync(join(dir, 'proj', '.vscode'), { recursive: true });
    const path = join(dir, 'proj', '.vscode', 'mcp.json');
    writeFileSync(
      path,
      [
        '// VS Code: Ctrl+Shift+P "MCP: Add Server"',
        '{',
        '  "inputs": [{ "type": "promptString", "id": "gh-token", "description": "GitHub token", "password": true }],',
        '  "servers": {',
        '    /* a local one */',
        '    "files": { "type": "stdio", "command": "npx", "args": ["-y", "server-filesystem", "${workspaceFolder}", "${userHome}${/}notes", "a,}b //c"], },',
        '    "gh": { "type": "http", "url": "https://api.example.com/mcp", "headers": { "Authorization": "Bearer ${input:gh-token}" } },',
        '    "old": { "type": "sse", "url": "http://127.0.0.1:9/sse", "envFile": "${workspaceFolder}/.env" },',
        '  },',
        '}',
      ].join('\n'),
    );
    const cfg = loadConfig(path, { env: { MCP_INPUT_GH_TOKEN: 'ghp_fromEnv' } });
    expect(cfg.invalid).toEqual([]);
    expect(cfg.servers.map((s) => [s.id, s.kind, s.kind === 'remote' ? s.type : 'stdio'])).toEqual([
      ['files', 'stdio', 'stdio'],
      ['gh', 'remote', 'http'],
      ['old', 'remote', 'sse'],
    ]);
    // The project of a .vscode/mcp.json is the folder above it; a string keeps its "//" and ",}".
    expect((cfg.servers[0] as StdioEntry).args).toEqual([
      '-y',
      'server-filesystem',
      join(dir, 'proj'),
      `${homedir()}${sep}notes`,
      'a,}b //c',
    ]);
    expect((cfg.servers[1] as RemoteEntry).headers).toEqual({ Authorization: 'Bearer ghp_fromEnv' });
  });

  it('a VS Code ${input:...} without its variable fails that entry alone, naming the input and the variable', () => {
    const path = writeConfig('mcp.json', {
      servers: {
        gh: { type: 'stdio', command: 'gh-mcp', env: { TOKEN: '${input:gh-token}' } },
        ok: { command: 'node' },
      },
    });
    const cfg = loadConfig(path, { env: {} });
    expect(cfg.servers.map((s) => s.id)).toEqual(['ok']);
    expect(cfg.invalid?.map((e) => e.issues)).toEqual([
      [
        'server "gh": env.TOKEN uses ${input:gh-token}, which VS Code asks the user for; this runtime cannot ask: set MCP_INPUT_GH_TOKEN to its value',
      ],
    ]);
    // A disabled entry may leave it unset, as it may an unset variable.
    const off = loadConfig(
      JSON.stringify({ servers: { gh: { command: 'x', args: ['${input:k}', '${command:pick}'], disabled: true } } }),
      { env: {} },
    );
    expect(off.servers.map((s) => s.id)).toEqual(['gh']);
    const editorOnly = loadConfig(JSON.stringify({ servers: { gh: { command: 'x', args: ['${config:mcp.path}'] } } }), {
      env: {},
    });
    expect(editorOnly.invalid?.[0].issues).toEqual([
      'server "gh": args[0] uses ${config:...}, which only VS Code can fill in',
    ]);
  });

  it("reads Cursor's ${env:NAME}, and ${workspaceFolder} as the file's own folder (or the current folder for inline JSON)", () => {
    const e = { API_KEY: 'k-123', HOME_DIR: '/h' };
    const path = writeConfig('mcp.json', {
      mcpServers: {
        c: {
          command: 'node',
          args: ['${workspaceFolder}', '${workspaceFolderBasename}'],
          env: { KEY: '${env:API_KEY}', D: '${env:NOPE:-d}' },
        },
      },
    });
    const fromFile = loadConfig(path, { env: e }).servers[0] as StdioEntry;
    expect(fromFile.args).toEqual([dir, basename(dir)]);
    expect(fromFile.env).toEqual({ KEY: 'k-123', D: 'd' });
    const inline = loadConfig(
      JSON.stringify({ mcpServers: { c: { command: 'node', args: ['${workspaceFolder}'] } } }),
      { cwd: dir },
    ).servers[0] as StdioEntry;
    expect(inline.args).toEqual([dir]);
    // An environment variable of that name wins; a missing ${env:NAME} is named as written.
    const own = loadConfig(JSON.stringify({ mcpServers: { c: { command: 'node', args: ['${workspaceFolder}'] } } }), {
      env: { workspaceFolder: '/mine' },
    });
    expect((own.servers[0] as StdioEntry).args).toEqual(['/mine']);
    const missing = loadConfig(JSON.stringify({ mcpServers: { c: { command: '${env:NOPE}' } } }), { env: {} });
    expect(missing.invalid?.[0].issues).toEqual([
      'server "c": command references ${env:NOPE}, but that variable is not set (write ${env:NOPE:-default} to give a fallback)',
    ]);
  });

  it('reads both maps of a file that has mcpServers beside VS Code servers, mcpServers first and winning', () => {
    const cfg = loadConfig(
      JSON.stringify({
        servers: { vs: { command: 'a' }, both: { command: 'from-servers' } },
        mcpServers: { both: { command: 'ours' }, mine: { command: 'b' } },
      }),
    );
    expect(cfg.servers.map((s) => [s.id, (s as StdioEntry).command])).toEqual([
      ['both', 'ours'],
      ['mine', 'b'],
      ['vs', 'a'],
    ]);
  });

  it('a top level without a servers map, or with a malformed one, is fatal', () => {
    expect(thrown(() => loadConfig('{"servers": []}')).issues).toEqual([
      'servers must be an object mapping server ids to server entries',
    ]);
    expect(thrown(() => loadConfig('{"mcpServers": [], "servers": {}}')).issues).toEqual([
      'mcpServers must be an object mapping server ids to server entries',
    ]);
    expect(thrown(() => loadConfig('{"inputs": []}')).issues).toEqual(['mcpServers is required']);
    expect(thrown(() => loadConfig(writeConfig('list.json', '[1,]'))).issues).toEqual(['config must be a JSON object']);
  });
});

describe('parseConfig: entries', () => {
  const one = (entry: unknown, options: Record<string, unknown> = {}, e: NodeJS.ProcessEnv = env): ProxyConfig =>
    parseConfig({ mcpServers: { s: entry }, ...options }, { env: e });

  it('keeps file order and keeps disabled entries with their kind', () => {
    const cfg = parseConfig({
      mcpServers: {
        zeta: { command: 'a' },
        alpha: { url: 'http://h/x', disabled: true },
        mid: { command: 'b', disabled: false },
      },
    });
    expect(cfg.servers.map((s) => [s.id, s.kind, s.disabled])).toEqual([
      ['zeta', 'stdio', false],
      ['alpha', 'remote', true],
      ['mid', 'stdio', false],
    ]);
    expect(parseConfig({ mcpServers: {} }).servers).toEqual([]);
  });

  it('maps type and transport to the remote type', () => {
    const type = (entry: object) => (one({ url: 'http://h/mcp', ...entry }).servers[0] as RemoteEntry).type;
    expect(type({})).toBe('auto');
    expect(type({ type: 'http' })).toBe('http');
    expect(type({ type: 'streamable-http' })).toBe('http');
    expect(type({ type: 'streamableHttp' })).toBe('http');
    expect(type({ type: 'sse' })).toBe('sse');
    expect(type({ type: 'bridge' })).toBe('bridge');
    expect(type({ transport: 'sse' })).toBe('sse');
    expect(type({ transport: 'streamable-http' })).toBe('http');
    expect(type({ type: 'http', transport: 'streamable-http' })).toBe('http');
    expect(one({ type: 'stdio', command: 'x' }).servers[0].kind).toBe('stdio');
  });

  it('turns authToken into Authorization: Bearer, replacing any case of that header', () => {
    const entry = one({
      url: 'https://h/mcp',
      headers: { authorization: 'Basic old', 'X-Other': 'v' },
      authToken: '${GITHUB_TOKEN}',
    }).servers[0] as RemoteEntry;
    expect(entry.headers).toEqual({ 'X-Other': 'v', Authorization: 'Bearer ghp_realtoken1234' });
    // An empty token (optional auth through a default) leaves the headers alone.
    const empty = one({ url: 'https://h/mcp', headers: { Authorization: 'Basic x' }, authToken: '${NOPE:-}' })
      .servers[0] as RemoteEntry;
    expect(empty.headers).toEqual({ Authorization: 'Basic x' });
  });

  it('expands ${VAR} in command, args, env values, cwd, url, headers and authToken, never in keys', () => {
    const e = { BIN: '/usr/bin/node', DIR: '/srv', KEY: 'k1', HOST: 'h.example' };
    const stdio = one(
      {
        command: '${BIN}',
        args: ['${DIR}/a', '$${DIR}', '${MISSING:-dflt}'],
        env: { '${KEY}': '${KEY}' },
        cwd: '${DIR}',
      },
      {},
      e,
    ).servers[0] as StdioEntry;
    expect(stdio).toMatchObject({ command: '/usr/bin/node', args: ['/srv/a', '${DIR}', 'dflt'], cwd: '/srv' });
    expect(stdio.env).toEqual({ '${KEY}': 'k1' });
    const remote = one({ url: 'https://${HOST}/m', headers: { 'X-Key': '${KEY}' }, authToken: '${KEY}' }, {}, e)
      .servers[0] as RemoteEntry;
    expect(remote.url).toBe('https://h.example/m');
    expect(remote.headers).toEqual({ 'X-Key': 'k1', Authorization: 'Bearer k1' });
  });

  it('applies options, timeouts and tool filters', () => {
    const cfg = one(
      {
        command: 'x',
        timeoutMs: 1_000,
        connectionTimeoutMs: 2_000,
        persistent: false,
        tools: { allow: ['read_*'], deny: ['read_secret*'] },
        allowTools: ['list'],
        denyTools: ['drop'],
        toolTimeouts: { 'read_*': 5_000 },
      },
      { toolNaming: 'original', readyTimeoutMs: 10, toolTimeouts: { 'build*': 600_000 } },
    );
    expect(cfg.servers[0]).toMatchObject({
      timeoutMs: 1_000,
      connectionTimeoutMs: 2_000,
      persistent: false,
      toolFilter: { allow: ['read_*'], deny: ['read_secret*'], allowExact: ['list'], denyExact: ['drop'] },
      toolTimeouts: { 'read_*': 5_000 },
    });
    expect(cfg).toMatchObject({ toolNaming: 'original', readyTimeoutMs: 10, toolTimeouts: { 'build*': 600_000 } });
    expect(toolTimeoutFor('read_file', cfg.servers[0], cfg.toolTimeouts)).toBe(5_000);
    expect(toolTimeoutFor('build', cfg.servers[0], cfg.toolTimeouts)).toBe(600_000);
    expect(toolTimeoutFor('other', cfg.servers[0], cfg.toolTimeouts)).toBe(1_000);
  });

  it('keeps ping settings, and 0 (heartbeat off) is allowed for pingIntervalMs only', () => {
    expect(
      one({ type: 'bridge', url: 'http://127.0.0.1:1/mcp/a', pingIntervalMs: 0, pingTimeoutMs: 500 }).servers[0],
    ).toMatchObject({
      type: 'bridge',
      pingIntervalMs: 0,
      pingTimeoutMs: 500,
    });
    expect(one({ url: 'http://h/' }).servers[0]).not.toHaveProperty('pingIntervalMs');
  });

  it('ignores unknown fields at both levels, and empty fields of the other kind', () => {
    const cfg = one(
      { command: 'x', autoApprove: ['a'], alwaysAllow: [], description: 'y', headers: {} },
      { someEditorSetting: { nested: true } },
    );
    expect(cfg.servers[0]).not.toHaveProperty('autoApprove');
    expect(one({ url: 'http://h/', args: [], env: {} }).servers[0].kind).toBe('remote');
  });

  it('lets a disabled entry reference unset variables', () => {
    const cfg = one({ url: '${NOPE}/mcp', headers: { A: '${NOPE2}' }, disabled: true }, {}, {});
    expect(cfg.servers[0]).toMatchObject({ disabled: true, url: '${NOPE}/mcp', headers: { A: '${NOPE2}' } });
  });
});
