// acpMcpServers: the ACP v1 shape of the session/new entries, where the token goes, and
// which servers go through the bridge, straight over http, or into the session's own proxy;
// the entry chosen for each agent (stdio, or one http entry to /mcp for an agent that drops
// stdio), the app's override, the session key, and every tool for an agent that searches itself.
// The config handed to the proxy is checked with the proxy's own parser.
import { describe, expect, it } from 'vitest';
import type { McpServer, McpServerStdio } from '@agentclientprotocol/sdk';
import { acpMcpServers, type AcpMcpServersOptions } from '../../src/main/acp/acp.js';
import { agentProfile } from '../../src/main/acp/agentProfiles.js';
import { parseConfig } from '../../src/proxy/index.js';
import { viewOf } from '../../src/main/config/userConfig.js';
import { CLI } from '../helpers/paths.js';

const TOKEN = 'tok-0123456789abcdef-secret';
const base = {
  bridge: { url: 'http://127.0.0.1:4567', token: TOKEN },
  bridgeIds: ['memory', 'everything'],
  cliPath: '/app/dist/proxy/qiming-mcp-stdio-proxy.cjs',
  node: { command: '/usr/bin/node', env: {}, electron: false },
  logFile: '/logs/mcp-proxy.log',
} satisfies AcpMcpServersOptions;
const electron = { command: '/opt/App/app', env: { ELECTRON_RUN_AS_NODE: '1' }, electron: true };
const envOf = (e: McpServerStdio) => Object.fromEntries(e.env.map((v) => [v.name, v.value]));
const configOf = (e: McpServerStdio) =>
  JSON.parse(e.args[e.args.indexOf('--config') + 1]) as { mcpServers: Record<string, Record<string, unknown>> };
const stdio = (servers: McpServer[]) => servers.filter((s): s is McpServerStdio => !('type' in s));

describe('acpMcpServers', () => {
  it('builds one stdio entry running the proxy with bridge upstreams; the token only in env', () => {
    const out = acpMcpServers(undefined, { ...base, node: electron });
    expect(out).toHaveLength(1);
    const e = out[0] as McpServerStdio;
    expect(e).not.toHaveProperty('type');
    expect(e.name).toBe('qiming');
    expect(e.command).toBe('/opt/App/app');
    expect(e.args.slice(0, 2)).toEqual([base.cliPath, '--config']);
    expect(JSON.stringify(e.args)).not.toContain(TOKEN);
    expect(envOf(e)).toEqual({
      MCP_BRIDGE_TOKEN: TOKEN,
      MCP_PROXY_LOG_FILE: '/logs/mcp-proxy.log',
      ELECTRON_RUN_AS_NODE: '1',
    });
    const cfg = configOf(e);
    expect(cfg.mcpServers.memory).toEqual({
      type: 'bridge',
      url: 'http://127.0.0.1:4567/mcp/memory',
      headers: { Authorization: 'Bearer ${MCP_BRIDGE_TOKEN}' },
    });
    // The proxy accepts it and expands the token from its environment.
    const parsed = parseConfig(cfg, { env: { MCP_BRIDGE_TOKEN: TOKEN } });
    expect(
      parsed.servers.map((s) => [s.id, s.kind === 'remote' && s.type, s.kind === 'remote' && s.headers.Authorization]),
    ).toEqual([
      ['memory', 'bridge', `Bearer ${TOKEN}`],
      ['everything', 'bridge', `Bearer ${TOKEN}`],
    ]);
  });

  it("passes the app's OpenTelemetry variables on, so the agent's proxy traces where the bridge does", () => {
    const saved = { endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT, name: process.env.OTEL_SERVICE_NAME };
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:4318';
    process.env.OTEL_SERVICE_NAME = '';
    try {
      const env = envOf(acpMcpServers(undefined, base)[0] as McpServerStdio);
      expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://127.0.0.1:4318');
      // An empty variable is as good as unset: not passed.
      expect(env).not.toHaveProperty('OTEL_SERVICE_NAME');
    } finally {
      for (const [k, v] of [
        ['OTEL_EXPORTER_OTLP_ENDPOINT', saved.endpoint],
        ['OTEL_SERVICE_NAME', saved.name],
      ] as const)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });

  it('defaults to the package CLI run by this executable, and no log file', () => {
    const e = acpMcpServers(undefined, { bridge: base.bridge, bridgeIds: ['memory'] })[0] as McpServerStdio;
    expect(e.command).toBe(process.execPath);
    expect(e.args[0]).toBe(CLI);
    expect(envOf(e)).not.toHaveProperty('MCP_PROXY_LOG_FILE');
    expect(envOf(e)).toHaveProperty('MCP_BRIDGE_TOKEN', TOKEN);
  });

  it('does not set ELECTRON_RUN_AS_NODE for plain node and refuses relative commands', () => {
    const e = acpMcpServers(undefined, base)[0] as McpServerStdio;
    expect(envOf(e)).not.toHaveProperty('ELECTRON_RUN_AS_NODE');
    expect(() => acpMcpServers(undefined, { ...base, node: { ...base.node, command: 'node' } })).toThrow(/absolute/);
  });

  it('puts persistent:false entries into the session proxy config, not through the bridge', () => {
    const scratch = { command: 'npx', args: ['-y', 'some-server'], persistent: false, env: { KEY: '${KEY}' } };
    const e = acpMcpServers(undefined, {
      ...base,
      bridgeIds: ['memory', 'scratch'],
      sessionEntries: { scratch },
    })[0] as McpServerStdio;
    const cfg = configOf(e);
    expect(Object.keys(cfg.mcpServers)).toEqual(['memory', 'scratch']);
    expect(cfg.mcpServers.scratch).toEqual(scratch); // raw: ${KEY} is expanded by the proxy (a reference, not a secret: stays)
    // Only session servers: no bridge token needed.
    const only = acpMcpServers(undefined, { ...base, bridgeIds: [], sessionEntries: { scratch } })[0] as McpServerStdio;
    expect(envOf(only)).not.toHaveProperty('MCP_BRIDGE_TOKEN');
    const withVars = acpMcpServers(undefined, {
      ...base,
      sessionEntries: { scratch },
      env: { KEY: 'v' },
    })[0] as McpServerStdio;
    expect(envOf(withVars).KEY).toBe('v');
    expect(acpMcpServers(undefined, { ...base, bridgeIds: [] })).toEqual([]);
  });

  it('keeps secrets of per-session entries out of argv, in env, where the proxy expands them', () => {
    const secret = 'ghp_supersecretvalue123';
    const scratch = {
      command: 'node',
      args: ['srv.js'],
      persistent: false,
      env: { GITHUB_TOKEN: secret, HOME_REF: '${HOME}' },
    };
    const remote = {
      url: 'http://127.0.0.1:9/mcp',
      headers: { 'X-Api-Key': 'k-abcdef' },
      authToken: 'tok-12345',
      persistent: false,
    };
    const e = acpMcpServers(undefined, {
      ...base,
      bridgeIds: [],
      sessionEntries: { scratch, remote },
    })[0] as McpServerStdio;
    const argv = e.args.join(' ');
    for (const s of [secret, 'k-abcdef', 'tok-12345']) expect(argv).not.toContain(s);
    const cfg = configOf(e) as {
      mcpServers: Record<
        string,
        { env?: Record<string, string>; headers?: Record<string, string>; authToken?: string }
      >;
    };
    const env = envOf(e);
    const expand = (v: string) => v.replace(/\$\{([A-Z0-9_]+)\}/g, (_, n: string) => env[n] ?? `\${${n}}`);
    expect(expand(cfg.mcpServers.scratch.env!.GITHUB_TOKEN)).toBe(secret);
    expect(cfg.mcpServers.scratch.env!.HOME_REF).toBe('${HOME}'); // a reference the user wrote stays one
    expect(expand(cfg.mcpServers.remote.headers!['X-Api-Key'])).toBe('k-abcdef');
    expect(expand(cfg.mcpServers.remote.authToken!)).toBe('tok-12345');
  });

  it('one entry per server when asked, with raw tool names', () => {
    const out = stdio(acpMcpServers(undefined, { ...base, layout: 'perServer' }));
    expect(out.map((e) => e.name)).toEqual(['memory', 'everything']);
    for (const e of out) {
      expect(Object.keys(configOf(e).mcpServers)).toEqual([e.name]);
      expect(e.args.slice(-2)).toEqual(['--tool-naming', 'original']);
    }
  });

  it("gives the session proxy the user's tool exposure settings: the top-level ones and each bridge server's", () => {
    const { exposure } = viewOf({
      toolExposure: 'search',
      toolBudgetTokens: 5000,
      toolNaming: 'original',
      mcpServers: {
        memory: { command: 'x', expose: 'always', description: 'The knowledge graph.' },
        everything: { command: 'y' },
      },
    });
    expect(exposure).toEqual({
      options: { toolExposure: 'search', toolBudgetTokens: 5000 },
      servers: { memory: { expose: 'always', description: 'The knowledge graph.' } },
    });
    for (const layout of ['aggregate', 'perServer'] as const) {
      const out = stdio(acpMcpServers(undefined, { ...base, exposure, layout }));
      const parsed = out.map((e) => parseConfig(configOf(e), { env: { MCP_BRIDGE_TOKEN: TOKEN } }));
      for (const p of parsed) expect(p).toMatchObject({ toolExposure: 'search', toolBudgetTokens: 5000 });
      expect(parsed.flatMap((p) => p.exposeAlways)).toEqual(['memory']);
      expect(Object.assign({}, ...parsed.map((p) => p.serverDescriptions))).toEqual({ memory: 'The knowledge graph.' });
    }
    // Nothing set: the proxy's config as without the settings.
    const plain = configOf(
      acpMcpServers(undefined, { ...base, exposure: viewOf({ mcpServers: {} }).exposure })[0] as McpServerStdio,
    );
    expect(Object.keys(plain)).toEqual(['mcpServers']);
  });

  it("gives the session proxy the user's result caps: the top-level one and each bridge server's", () => {
    const { exposure } = viewOf({
      maxResultBytes: 50_000,
      mcpServers: { memory: { command: 'x', maxResultBytes: 'off' }, everything: { command: 'y' } },
    });
    for (const layout of ['aggregate', 'perServer'] as const) {
      const out = stdio(acpMcpServers(undefined, { ...base, exposure, layout }));
      const parsed = out.map((e) => parseConfig(configOf(e), { env: { MCP_BRIDGE_TOKEN: TOKEN } }));
      for (const p of parsed) expect(p.maxResultBytes).toBe(50_000);
      const servers = parsed.flatMap((p) => p.servers);
      expect(servers.find((e) => e.id === 'memory')?.maxResultBytes).toBe('off');
      expect(servers.find((e) => e.id === 'everything')?.maxResultBytes).toBeUndefined();
    }
  });

  it('gives each agent the entry it takes: stdio, or one http entry to /mcp for one that drops stdio', () => {
    const http = { mcpCapabilities: { http: true } };
    const local = { sessionEntries: { s: { command: 'x', persistent: false } } };
    const aggregate = {
      type: 'http',
      name: 'qiming',
      url: 'http://127.0.0.1:4567/mcp',
      headers: [{ name: 'Authorization', value: `Bearer ${TOKEN}` }],
    };
    // Copilot drops stdio entries: the bridge's aggregate over http, and no proxy for per-session servers.
    expect(acpMcpServers(http, { ...base, ...local, agentInfo: { name: 'Copilot', version: '1.0.102' } })).toEqual([
      aggregate,
    ]);
    // Agents that take stdio keep it, http or not.
    for (const name of [
      'gemini-cli',
      'OpenCode',
      'qwen-code',
      '@agentclientprotocol/claude-agent-acp',
      'some-new-agent',
    ]) {
      const out = acpMcpServers(http, { ...base, agentInfo: { name, version: '1' } });
      expect(out.map((e) => ('type' in e ? e.type : 'stdio'))).toEqual(['stdio']);
    }
    // Copilot without http: stdio, the only thing left to try.
    expect(stdio(acpMcpServers({}, { ...base, agentInfo: { name: 'Copilot', version: '1' } }))).toHaveLength(1);
  });

  it("lets the app's transport win: stdio forced, or http (the aggregate, plus a local proxy for per-session servers)", () => {
    const http = { mcpCapabilities: { http: true } };
    const copilot = { name: 'Copilot', version: '1' };
    expect(stdio(acpMcpServers(http, { ...base, agentInfo: copilot, transport: 'stdio' }))).toHaveLength(1);
    for (const asked of [{ transport: 'http' as const }, { preferHttp: true }]) {
      const out = acpMcpServers(http, {
        ...base,
        ...asked,
        agentInfo: { name: 'gemini-cli', version: '1' },
        sessionEntries: { s: { command: 'x', persistent: false } },
      });
      expect(out.map((e) => [e.name, 'type' in e ? e.type : 'stdio'])).toEqual([
        ['qiming', 'http'],
        ['qiming-local', 'stdio'],
      ]);
      expect(Object.keys(configOf(stdio(out)[0]).mcpServers)).toEqual(['s']);
    }
    // http where the agent has none: stdio.
    expect(stdio(acpMcpServers({ mcpCapabilities: { http: false } }, { ...base, transport: 'http' }))).toHaveLength(1);
    // One http entry per server under `perServer`, or for a selection (the aggregated route serves every server).
    for (const more of [{ layout: 'perServer' as const }, { selected: true }]) {
      const out = acpMcpServers(http, { ...base, ...more, transport: 'http' });
      expect(out.map((e) => ('url' in e ? e.url : ''))).toEqual([
        'http://127.0.0.1:4567/mcp/memory',
        'http://127.0.0.1:4567/mcp/everything',
      ]);
    }
  });

  it("sends the session's key to the bridge on each of its connections, never in argv's token, with what the app chose", () => {
    const key = 'k3y-of-the-session_0';
    const [entry] = stdio(acpMcpServers(undefined, { ...base, sessionKey: key }));
    const parsed = parseConfig(configOf(entry), { env: envOf(entry) });
    for (const server of parsed.servers)
      expect(server.kind === 'remote' && server.headers).toEqual({
        Authorization: `Bearer ${TOKEN}`,
        'x-qiming-agent-session': key,
        'x-qiming-agent-entry': 'stdio',
      });
    // An agent that searches by itself: its name, and every tool listed, on each stream link of its proxy.
    const claude = { name: '@agentclientprotocol/claude-agent-acp', version: '0.101.0' };
    const [own] = stdio(acpMcpServers(undefined, { ...base, sessionKey: key, agentInfo: claude }));
    for (const server of parseConfig(configOf(own), { env: envOf(own) }).servers)
      expect(server.kind === 'remote' && server.headers).toEqual({
        Authorization: `Bearer ${TOKEN}`,
        'x-qiming-agent-session': key,
        'x-qiming-agent-name': '@agentclientprotocol/claude-agent-acp',
        'x-qiming-agent-entry': 'stdio',
        'x-qiming-tool-exposure': 'all',
      });
    const http = { mcpCapabilities: { http: true } };
    const [agg] = acpMcpServers(http, {
      ...base,
      sessionKey: key,
      transport: 'http',
      agentInfo: { name: 'gemini\r\n${TOKEN} cli', version: '1' },
    });
    expect('headers' in agg && agg.headers.slice(1)).toEqual([
      { name: 'x-qiming-agent-session', value: key },
      // Made to fit a header, and nothing the proxy would expand.
      { name: 'x-qiming-agent-name', value: 'gemini___{TOKEN} cli' },
      { name: 'x-qiming-agent-entry', value: 'http' },
    ]);
    // One entry per server: no exposure asked for, each lists its own tools.
    const perServer = acpMcpServers(http, {
      ...base,
      sessionKey: key,
      transport: 'http',
      layout: 'perServer',
      agentInfo: claude,
    });
    for (const e of perServer)
      expect('headers' in e && e.headers.slice(1)).toEqual([
        { name: 'x-qiming-agent-session', value: key },
        { name: 'x-qiming-agent-name', value: '@agentclientprotocol/claude-agent-acp' },
        { name: 'x-qiming-agent-entry', value: 'http' },
      ]);
  });

  it("gives an agent that searches its tools itself every tool under auto, and the runtime's search to one that does not", () => {
    const http = { mcpCapabilities: { http: true } };
    const exposure = (toolExposure?: string) => ({ options: toolExposure ? { toolExposure } : {}, servers: {} });
    const modeOf = (name: string, toolExposure?: string) =>
      (
        configOf(
          stdio(
            acpMcpServers(undefined, { ...base, agentInfo: { name, version: '1' }, exposure: exposure(toolExposure) }),
          )[0],
        ) as { toolExposure?: unknown }
      ).toolExposure;
    for (const name of ['@agentclientprotocol/claude-agent-acp', '@agentclientprotocol/codex-acp', 'qwen-code']) {
      expect(modeOf(name)).toBe('all');
      expect(modeOf(name, 'auto')).toBe('all');
      expect(modeOf(name, 'search')).toBe('search'); // the user's choice stands
    }
    for (const name of ['gemini-cli', 'OpenCode', 'Copilot', 'unknown']) expect(modeOf(name)).toBeUndefined();
    // Over http, the aggregated route is asked for every tool.
    const [claude] = acpMcpServers(http, {
      ...base,
      transport: 'http',
      agentInfo: { name: '@agentclientprotocol/claude-agent-acp', version: '0.101.0' },
    });
    expect('headers' in claude && claude.headers).toContainEqual({ name: 'x-qiming-tool-exposure', value: 'all' });
  });

  it('recognises the agents by what they say at initialize', () => {
    expect(agentProfile({ name: 'Copilot', version: '1.0.102' })).toEqual({
      agent: 'copilot',
      refusesStdio: true,
      searchesTools: false,
    });
    expect(agentProfile({ name: 'qwen-code', version: '0.24.4' })).toMatchObject({
      agent: 'qwen',
      searchesTools: true,
    });
    expect(agentProfile({ name: '@agentclientprotocol/codex-acp', version: '2.6.0' })).toMatchObject({
      agent: 'codex',
    });
    expect(agentProfile({ name: 'OpenCode', version: '1.18.33' })).toMatchObject({
      agent: 'opencode',
      searchesTools: false,
    });
    expect(agentProfile({ name: 'gemini-cli', version: '0.61.0' })).toMatchObject({
      agent: 'gemini',
      searchesTools: false,
    });
    // Claude's adapter by name, or by its capabilities' `_meta.claudeCode`.
    expect(agentProfile(undefined, { _meta: { claudeCode: { promptQueueing: true } } })).toMatchObject({
      agent: 'claude',
    });
    expect(agentProfile({ name: 'my-agent', version: '1' })).toEqual({ refusesStdio: false, searchesTools: false });
  });
});
