// An allow given in an agent's own permission prompt belongs to the one call it was given for:
// that agent session (its caller key, which only the session's stdio proxy carries to the
// bridge, or its http entry's header), that tool of that server (`a` + `b__c` is not `a__b` + `c`), those arguments (key
// order aside). It answers the bridge's ask of that call once, lapses when the call does not
// come, and every other call is asked: another client's, another session's, other arguments.
// A real bridge (McpRuntime), AcpEngine driving the fixture ACP agent (it asks permission, then
// calls through the stdio proxy it was handed, one prompt each, so a test acts in between),
// real fixture servers, and another client on the bridge's /mcp.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { McpRuntime, type ApprovalRequest } from '../../src/main/runtime/mcpRuntime.js';
import { AcpEngine } from '../../src/main/acp/acpEngine.js';
import { DEFAULT_ENTRY_NAME } from '../../src/main/acp/acp.js';
import { nodeCommand } from '../../src/main/runtime/cliPath.js';
import { CALLER_KEY_ENV, CALLER_KEY_HEADER } from '../../src/proxy/index.js';
import { cleanupRuntimes, ensureCli, FIXTURES, memoryLogger, tempDir, waitFor, writeConfig } from './mainHarness.js';
import { descendantsOf } from '../helpers/procTree.js';
import { allowOnce } from '../helpers/realAgents.js';

const AGENT = join(FIXTURES, 'acpAgent.mjs');
const NAMED = join(FIXTURES, 'namedToolsServer.mjs');
const NOTES = join(FIXTURES, 'annotatedToolsServer.mjs');
/** The lapse test's grant lifetime: it waits this long past the prompt, so short. */
const SHORT_GRANT_MS = 500;

interface Setup {
  runtime: McpRuntime;
  engine: AcpEngine;
  /** Every question the bridge asked the app (each one answered Deny). */
  asked: ApprovalRequest[];
  /** Every permission prompt the agent put to the app (each one answered Allow once). */
  prompted: RequestPermissionRequest[];
  /** The tools the notes server ran, in order. */
  ran: () => string[];
  log: string[];
  /** The env (stdio) or headers (http) of each session's entry, by session id. */
  env: Map<string, Record<string, string>>;
}

const runtimes: McpRuntime[] = [];
const engines: AcpEngine[] = [];
const clients: Client[] = [];
const pids = new Set<number>();

async function setUp(approvalGrantMs?: number, http = false, layout?: 'perServer'): Promise<Setup> {
  const dir = tempDir('qiming-approval-grants-');
  const ranFile = join(dir, 'ran.txt');
  const configFile = join(dir, 'mcp.json');
  writeConfig(configFile, {
    approval: 'ask',
    approvalTimeoutMs: 30_000,
    mcpServers: {
      notes: { command: process.execPath, args: [NOTES, '--ran', ranFile] },
      a: { command: process.execPath, args: [NAMED, 'b__c'] },
      a__b: { command: process.execPath, args: [NAMED, 'c'] },
      m: { command: process.execPath, args: [join(FIXTURES, 'metaEchoServer.mjs')], approval: 'off' },
    },
  });
  const log = memoryLogger();
  const runtime = new McpRuntime({
    configFile,
    cliPath: ensureCli(),
    logger: log.logger,
    watchConfig: false,
    ...(approvalGrantMs === undefined ? {} : { approvalGrantMs }),
  });
  runtimes.push(runtime);
  runtime.on('status', (s) => {
    for (const p of [s.bridge.pid, ...s.servers.map((x) => x.pid)]) if (p) pids.add(p);
  });
  const asked: ApprovalRequest[] = [];
  // A question a grant does not answer is denied: a grant taken by the wrong call shows as a call that ran.
  runtime.on('approval', (r) => {
    asked.push(r);
    r.answer('deny');
  });
  await runtime.start();
  await runtime.whenReady();
  const prompted: RequestPermissionRequest[] = [];
  const engine = new AcpEngine({
    command: process.execPath,
    args: http ? [AGENT, '--http'] : [AGENT],
    runtime,
    mcp: {
      cliPath: ensureCli(),
      node: nodeCommand(),
      ...(http ? { transport: 'http' as const } : {}),
      ...(layout ? { layout } : {}),
    },
    logger: log.logger,
    onPermission: async (req) => {
      prompted.push(req);
      return allowOnce(req);
    },
  });
  engines.push(engine);
  await engine.start();
  pids.add(engine.pid!);
  const ran = () => (existsSync(ranFile) ? readFileSync(ranFile, 'utf8').split('\n').filter(Boolean) : []);
  return { runtime, engine, asked, prompted, ran, log: log.lines, env: new Map() };
}

/** A new session of the fixture agent; its entry's env kept. */
async function openSession(t: Setup): Promise<string> {
  const res = await t.engine.newSession(tempDir('qiming-approval-cwd-'));
  type Pair = { name: string; value: string };
  const entries = (res._meta as { entries: { env?: Pair[]; headers?: Pair[] }[] }).entries;
  const pairs = entries[0]!.env ?? entries[0]!.headers ?? [];
  t.env.set(res.sessionId, Object.fromEntries(pairs.map((e) => [e.name, e.value])));
  for (const p of descendantsOf(t.engine.pid!)) pids.add(p);
  return res.sessionId;
}

type Step = {
  outcome?: { outcome: string; optionId?: string };
  result?: { content: { text: string }[] };
  error?: string;
};

async function step(t: Setup, sessionId: string, text: string): Promise<Step> {
  const res = await t.engine.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  return res._meta as Step;
}

/** The agent asks permission for `tool` (as its entry names it) with `args`; the app allows once. */
async function permit(
  t: Setup,
  sessionId: string,
  tool: string,
  args: Record<string, unknown>,
  entry = DEFAULT_ENTRY_NAME,
): Promise<void> {
  const s = await step(t, sessionId, `permit ${entry} ${tool} ${JSON.stringify(args)}`);
  expect(s.outcome).toEqual({ outcome: 'selected', optionId: 'allow' });
}

/** The agent calls `tool` through its entry: the result's text, or `error: ...`. */
async function agentCall(
  t: Setup,
  sessionId: string,
  tool: string,
  args: Record<string, unknown>,
  entry = DEFAULT_ENTRY_NAME,
): Promise<string> {
  const s = await step(t, sessionId, `call ${entry} ${tool} ${JSON.stringify(args)}`);
  return s.error !== undefined ? `error: ${s.error}` : (s.result?.content[0]?.text ?? '');
}

/** Another client of the bridge's aggregate. */
async function otherClient(t: Setup): Promise<Client> {
  const bridge = await t.runtime.whenReady();
  const client = new Client({ name: 'other-client', version: '3.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${bridge.token}` } },
    }),
  );
  clients.push(client);
  return client;
}

async function clientCall(c: Client, tool: string, args: Record<string, unknown>): Promise<string> {
  try {
    const r = (await c.callTool({ name: tool, arguments: args })) as { content: { text: string }[] };
    return r.content[0]?.text ?? '';
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

afterAll(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const e of engines.splice(0)) await e.stop({ deadlineMs: 3000 });
  expect(await cleanupRuntimes(runtimes, pids)).toEqual([]);
});

describe("an allow from an agent's own permission prompt", () => {
  let t: Setup;
  let other: Client;
  let a: string;
  let b: string;

  beforeAll(async () => {
    t = await setUp();
    a = await openSession(t);
    b = await openSession(t);
    other = await otherClient(t);
  }, 90_000);

  it("is not taken by another client's call with other arguments; the agent's own call runs on it", async () => {
    t.asked.length = 0;
    await permit(t, a, 'notes__delete_note', { text: 'old-notes' });
    expect(await clientCall(other, 'notes__delete_note', { text: 'EVERYTHING' })).toMatch(/denied/);
    expect(t.asked.map((r) => [r.client, r.clientVersion, r.arguments])).toEqual([
      ['other-client', '3.0.0', { text: 'EVERYTHING' }],
    ]);
    expect(await agentCall(t, a, 'notes__delete_note', { text: 'old-notes' })).toBe('delete_note ran (text)');
    // The agent's call was not asked again, and only it reached the server.
    expect(t.asked).toHaveLength(1);
    expect(t.ran()).toEqual(['delete_note']);
  });

  it("is not taken by the same call from another client or from another of the agent's sessions", async () => {
    t.asked.length = 0;
    const before = t.ran().length;
    await permit(t, a, 'notes__delete_note', { text: 'same' });
    expect(await clientCall(other, 'notes__delete_note', { text: 'same' })).toMatch(/denied/);
    expect(await agentCall(t, b, 'notes__delete_note', { text: 'same' })).toMatch(/denied/);
    expect(t.asked.map((r) => r.client)).toEqual(['other-client', 'fixture-agent']);
    expect(await agentCall(t, a, 'notes__delete_note', { text: 'same' })).toBe('delete_note ran (text)');
    expect(t.asked).toHaveLength(2);
    expect(t.ran().length - before).toBe(1);
  });

  it("is not taken by the agent's own call with other arguments; key order does not count", async () => {
    t.asked.length = 0;
    await permit(t, a, 'notes__write_note', { text: 'draft', title: 'memo' });
    expect(await agentCall(t, a, 'notes__write_note', { text: 'other' })).toMatch(/denied/);
    expect(t.asked.map((r) => r.arguments)).toEqual([{ text: 'other' }]);
    expect(await agentCall(t, a, 'notes__write_note', { title: 'memo', text: 'draft' })).toBe('write_note ran (text)');
    expect(t.asked).toHaveLength(1);
  });

  it('is taken once', async () => {
    t.asked.length = 0;
    await permit(t, a, 'notes__delete_note', { text: 'twice' });
    expect(await agentCall(t, a, 'notes__delete_note', { text: 'twice' })).toBe('delete_note ran (text)');
    expect(await agentCall(t, a, 'notes__delete_note', { text: 'twice' })).toMatch(/denied/);
    expect(t.asked.map((r) => [r.tool, r.arguments])).toEqual([['delete_note', { text: 'twice' }]]);
  });

  it('names the server and tool as the bridge reads them: a + b__c is not a__b + c', async () => {
    const exposed = new Map<string, string>();
    for (const name of ['a__b__c', ...(await other.listTools()).tools.map((x) => x.name)]) {
      const r = await t.runtime.approvalFor(name);
      if (r?.server === 'a' || r?.server === 'a__b') exposed.set(`${r.server} ${r.tool}`, name);
    }
    expect([...exposed.keys()].sort()).toEqual(['a b__c', 'a__b c']);
    t.asked.length = 0;
    await permit(t, a, exposed.get('a__b c')!, {});
    expect(await agentCall(t, a, exposed.get('a b__c')!, {})).toMatch(/denied/);
    expect(t.asked.map((r) => [r.server, r.tool])).toEqual([['a', 'b__c']]);
    expect(await agentCall(t, a, exposed.get('a__b c')!, {})).toBe('ran c');
    expect(t.asked).toHaveLength(1);
  });

  it("keeps the session's caller key from the app's listener, the logs and the servers", async () => {
    const key = t.env.get(a)![CALLER_KEY_ENV]!;
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(t.env.get(b)![CALLER_KEY_ENV]).not.toBe(key);
    expect(await agentCall(t, a, 'm__meta', {})).not.toMatch(/caller|qiming/);
    for (const r of t.asked) expect(r).not.toHaveProperty('callerKey');
    expect(t.log.join('\n')).not.toContain(key);
    // Every prompt was the app's once; the grants spared the second question.
    expect(t.prompted.length).toBeGreaterThan(0);
  });
});

describe('an allow whose call does not come', () => {
  it(`lapses after approvalGrantMs (here ${SHORT_GRANT_MS} ms): the call, when it comes, is asked`, async () => {
    const t = await setUp(SHORT_GRANT_MS);
    const a = await openSession(t);
    await permit(t, a, 'notes__delete_note', { text: 'late' });
    // The grant was made before the prompt answered; past its lifetime it is gone.
    const lapsed = Date.now() + SHORT_GRANT_MS;
    await waitFor(() => Date.now() > lapsed, SHORT_GRANT_MS + 5000, 'the grant lifetime to pass');
    expect(await agentCall(t, a, 'notes__delete_note', { text: 'late' })).toMatch(/denied/);
    expect(t.asked.map((r) => [r.tool, r.arguments])).toEqual([['delete_note', { text: 'late' }]]);
    expect(t.ran()).toEqual([]);
  }, 90_000);
});

describe('an allow from the prompt of an agent on an http entry (no proxy of its own)', () => {
  let t: Setup;
  let other: Client;
  let a: string;
  let b: string;

  beforeAll(async () => {
    t = await setUp(undefined, true);
    a = await openSession(t);
    b = await openSession(t);
    other = await otherClient(t);
  }, 90_000);

  it("answers the session's own call once; another client's and another session's are asked", async () => {
    const key = Object.entries(t.env.get(a)!).find(([k]) => k.toLowerCase() === CALLER_KEY_HEADER)?.[1];
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    t.asked.length = 0;
    await permit(t, a, 'notes__delete_note', { text: 'same' });
    expect(await clientCall(other, 'notes__delete_note', { text: 'same' })).toMatch(/denied/);
    expect(await agentCall(t, b, 'notes__delete_note', { text: 'same' })).toMatch(/denied/);
    expect(t.asked.map((r) => r.client)).toEqual(['other-client', 'fixture-agent']);
    expect(await agentCall(t, a, 'notes__delete_note', { text: 'same' })).toBe('delete_note ran (text)');
    expect(await agentCall(t, a, 'notes__delete_note', { text: 'same' })).toMatch(/denied/);
    expect(t.asked).toHaveLength(3);
    expect(t.ran()).toEqual(['delete_note']);
    expect(t.log.join('\n')).not.toContain(key);
  });
});

describe('the prompt of an agent on http entries of one server each (layout perServer), tools under their own names', () => {
  let t: Setup;
  let a: string;

  beforeAll(async () => {
    t = await setUp(undefined, true, 'perServer');
    a = await openSession(t);
  }, 90_000);

  it("is read as that server's tool: the policy answers it, and an allow from the app answers the call once", async () => {
    // `m` is `"approval": "off"`: the policy allows its `meta`, and the app is not asked.
    t.prompted.length = 0;
    await permit(t, a, 'meta', {}, 'm');
    expect(t.prompted).toEqual([]);
    expect(t.log.join('\n')).toContain(
      'the agent\'s permission prompt for "m__meta" (session session-1) answered allow',
    );
    // `notes` asks: the app's allow is granted to the bridge for notes' delete_note, and the call runs unasked.
    t.asked.length = 0;
    await permit(t, a, 'delete_note', { text: 'one' }, 'notes');
    expect(t.prompted.map((p) => p.toolCall.title)).toEqual(['mcp__notes__delete_note']);
    expect(await agentCall(t, a, 'delete_note', { text: 'one' }, 'notes')).toBe('delete_note ran (text)');
    expect(t.asked).toEqual([]);
    expect(t.ran()).toEqual(['delete_note']);
  });
});
