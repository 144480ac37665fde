// The bridge's ledger of the app's ACP agent sessions (bridge/agentSessions.ts), as its status
// lists them: one row per session key whatever its number of connections, the list that applies
// (the agent's own search, one server per entry, the runtime's mode in force), ended once its
// last connection closed (once, even where a transport reports its close twice), forgotten 10
// minutes after, at most 32 kept with the ended ones forgotten first. The routes are as
// mcpRoute.ts reads them from real headers; the clock is the test's.
import { describe, expect, it } from 'vitest';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AgentSessions, ENDED_KEPT_MS, MAX_AGENT_SESSIONS } from '../../../src/proxy/bridge/agentSessions.js';
import { routeOf, type AgentTag, type McpRoute } from '../../../src/proxy/bridge/mcpRoute.js';

const KEY = 'session-key-0001';

function setUp() {
  let now = Date.parse('2026-12-06T08:00:00Z');
  let changes = 0;
  const ledger = new AgentSessions(
    () => void changes++,
    () => now,
  );
  /** Opens a connection of a route read from `headers`; returns its close. */
  const open = (serverId: string | undefined, kind: McpRoute['kind'], headers: Record<string, string>) => {
    const route = routeOf(serverId, kind, headers);
    expect(route.agent).toBeDefined();
    const transport = { onclose: undefined as (() => void) | undefined } as unknown as Transport;
    ledger.opened(route as McpRoute & { agent: AgentTag }, transport);
    return () => transport.onclose?.();
  };
  return {
    ledger,
    open,
    tick: (ms: number) => void (now += ms),
    changes: () => changes,
    list: (inForce: 'all' | 'search' = 'search') => ledger.list({ inForce }),
  };
}

describe("the bridge's ledger of agent sessions", () => {
  it('lists each session once, with the list that applies to it, and ends it once its last connection closed', () => {
    const t = setUp();
    const claude = { 'x-qiming-agent-session': KEY, 'x-qiming-agent-name': 'claude', 'x-qiming-tool-exposure': 'all' };
    const a = t.open('memory', 'stream', { ...claude, 'x-qiming-agent-entry': 'stdio' });
    const b = t.open('everything', 'stream', { ...claude, 'x-qiming-agent-entry': 'stdio' });
    t.tick(1);
    t.open(undefined, 'streamable', {
      'x-qiming-agent-session': 'session-key-0002',
      'x-qiming-agent-name': 'gemini-cli',
    });
    t.open('memory', 'streamable', { 'x-qiming-agent-session': 'session-key-0003', 'x-qiming-agent-entry': 'http' });
    // The bridge's own `/mcp` asked for every tool by an agent's http entry.
    t.open(undefined, 'streamable', { 'x-qiming-agent-session': 'session-key-0004', 'x-qiming-tool-exposure': 'all' });
    const rows = t.list().map(({ id, agent, transport, listedBy, tools, connections }) => ({
      id,
      agent,
      transport,
      listedBy,
      tools,
      connections,
    }));
    expect(rows).toEqual([
      { id: 4, agent: undefined, transport: 'http', listedBy: 'agent', tools: 'all', connections: 1 },
      { id: 3, agent: undefined, transport: 'http', listedBy: 'server', tools: 'all', connections: 1 },
      { id: 2, agent: 'gemini-cli', transport: 'http', listedBy: 'runtime', tools: 'search', connections: 1 },
      { id: 1, agent: 'claude', transport: 'stdio', listedBy: 'agent', tools: 'all', connections: 2 },
    ]);
    // The runtime's mode as in force now.
    expect(t.list('all').find((s) => s.id === 2)?.tools).toBe('all');
    a();
    a(); // a transport that reports its close twice
    expect(t.list().find((s) => s.id === 1)).toMatchObject({ connections: 1 });
    expect(t.list().find((s) => s.id === 1)?.endedAt).toBeUndefined();
    t.tick(5);
    const before = t.changes();
    b();
    expect(t.changes()).toBe(before + 1);
    expect(t.list().find((s) => s.id === 1)).toMatchObject({ connections: 0, endedAt: '2026-12-06T08:00:00.006Z' });
    // Kept 10 minutes, then forgotten.
    t.tick(ENDED_KEPT_MS);
    expect(t.list().some((s) => s.id === 1)).toBe(true);
    t.tick(1);
    expect(t.list().some((s) => s.id === 1)).toBe(false);
  });

  it('keeps at most 32, forgetting the oldest ended session first, else the oldest', () => {
    const t = setUp();
    const key = (n: number) => `session-key-${String(n).padStart(4, '0')}`;
    const closes = new Map<number, () => void>();
    for (let n = 1; n <= MAX_AGENT_SESSIONS; n++)
      closes.set(n, t.open(undefined, 'streamable', { 'x-qiming-agent-session': key(n) }));
    closes.get(5)!();
    t.open(undefined, 'streamable', { 'x-qiming-agent-session': key(33) });
    let ids = t.list().map((s) => s.id);
    expect(ids).toHaveLength(MAX_AGENT_SESSIONS);
    expect(ids).not.toContain(5);
    expect(ids).toContain(1);
    t.open(undefined, 'streamable', { 'x-qiming-agent-session': key(34) });
    ids = t.list().map((s) => s.id);
    expect(ids).toHaveLength(MAX_AGENT_SESSIONS);
    expect(ids).not.toContain(1);
    expect(ids[0]).toBe(34);
  });

  it('reads no session from a malformed key, and no name or entry kind from malformed values', () => {
    expect(routeOf(undefined, 'streamable', { 'x-qiming-agent-session': 'short' }).agent).toBeUndefined();
    expect(routeOf(undefined, 'streamable', { 'x-qiming-agent-session': 'has spaces in it' }).agent).toBeUndefined();
    const tag = routeOf('a', 'stream', {
      'x-qiming-agent-session': KEY,
      'x-qiming-agent-name': `\${TOKEN}${'x'.repeat(80)}`,
      'x-qiming-agent-entry': 'carrier-pigeon',
    }).agent;
    expect(tag).toEqual({ key: KEY, allTools: false });
  });
});
