// `proxy --watch`: the bridge follows its config file by itself, also when an editor replaces
// it by rename; a new toolNaming applies without restarting any server; an agent's stdio
// proxy, which reaches the bridge over the stream link, sees list_changed for a server the
// bridge restarted on its new entry, and its tools as they now are. A config that is a symlink
// is followed where its writes land (the target's folder), and to a new target when re-pointed.
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuntimeStatus, ServerStatus } from '../../../src/shared/status.js';
import {
  builtCli,
  cleanupBridges,
  fixture,
  nodeEntry,
  startBridge,
  tempDir,
  trackPids,
  waitFor,
  type BridgeProcess,
} from '../../helpers/bridgeProcess.js';

const FIXTURE = fixture('mcpFixtureServer.mjs');
const agents: Client[] = [];

afterEach(async () => {
  for (const c of agents.splice(0)) await c.close().catch(() => undefined);
  await cleanupBridges();
});

/** Writes `config` as an editor does: a temporary file renamed over the original. */
function replaceByRename(file: string, config: unknown): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(config));
  renameSync(tmp, file);
}

function countListChanged(client: Client): { count: number } {
  const seen = { count: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    seen.count++;
  });
  return seen;
}

async function waitStatus(b: BridgeProcess, pred: (s: RuntimeStatus) => boolean, what: string): Promise<RuntimeStatus> {
  return waitFor(
    async () => {
      const s = await b.status();
      return pred(s) && s;
    },
    15_000,
    what,
  );
}

const pids = (s: RuntimeStatus) => Object.fromEntries(s.servers.map((x: ServerStatus) => [x.id, x.pid]));
// A server being stopped may still say ready for a moment, without a pid.
const ready = (s: RuntimeStatus) => s.servers.every((x) => x.state === 'ready' && x.pid !== undefined);

describe('bridge --watch', () => {
  it('follows a file replaced by rename: toolNaming without restarts, an added server, a broken edit reported', async () => {
    const dir = tempDir();
    const file = join(dir, 'mcp.json');
    const servers = {
      a: nodeEntry(FIXTURE, ['--name', 'a']),
      b: nodeEntry(fixture('pidServer.mjs'), [join(dir, 'b.pids')]),
    };
    writeFileSync(file, JSON.stringify({ mcpServers: servers }));
    const b = await startBridge({ config: file, args: ['--watch'] });
    const before = await b.status();
    const { client } = await b.client('/mcp');
    const changed = countListChanged(client);
    const names0 = (await client.listTools()).tools.map((t) => t.name);
    expect(names0).toContain('a__whoami');

    // toolNaming: the same processes, the tools renamed, the session told.
    replaceByRename(file, { toolNaming: 'original', toolTimeouts: { 'slow*': 60_000 }, mcpServers: servers });
    await waitFor(() => changed.count >= 1, 10_000, 'tools/list_changed after the toolNaming change');
    const names1 = (await client.listTools()).tools.map((t) => t.name);
    expect(names1).toContain('whoami');
    expect(names1).not.toContain('a__whoami');
    expect(pids(await b.status())).toEqual(pids(before));
    expect(b.stderr).toMatch(/config reloaded \(the config file changed\): options toolNaming, toolTimeouts/);

    // An added server, by rename again.
    replaceByRename(file, {
      toolNaming: 'original',
      mcpServers: { ...servers, c: nodeEntry(FIXTURE, ['--name', 'c', '--tools', 'whoami']) },
    });
    const added = await waitStatus(b, (s) => s.servers.length === 3 && ready(s), 'c added and ready');
    b.remember(...added.servers.map((x) => x.pid));
    expect(pids(added)).toMatchObject(pids(before));

    // A broken edit: reported in the status, nothing changes.
    replaceByRename(file, { mcpServers: { ...servers, c: { url: 'not a url' } } });
    const broken = await waitStatus(b, (s) => s.bridge.configError !== undefined, 'the broken edit in the status');
    expect(broken.bridge.configError).toMatch(/c/);
    expect(pids(broken)).toEqual(pids(added));
    expect(b.exit).toBeUndefined();
  });

  it("an agent's stdio proxy over the stream link sees list_changed and the new tools of a server restarted by a reload", async () => {
    const dir = tempDir();
    const file = join(dir, 'mcp.json');
    const servers = {
      a: nodeEntry(FIXTURE, ['--name', 'a', '--tools', 'echo']),
      b: nodeEntry(FIXTURE, ['--name', 'b', '--tools', 'echo']),
    };
    writeFileSync(file, JSON.stringify({ mcpServers: servers }));
    const b = await startBridge({ config: file, args: ['--watch'] });
    const before = await b.status();
    const link = (id: string) => ({
      type: 'bridge',
      url: `${b.url}/mcp/${id}`,
      headers: { Authorization: 'Bearer ${MCP_BRIDGE_TOKEN}' },
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [builtCli(), '--config', JSON.stringify({ mcpServers: { a: link('a'), b: link('b') } })],
      env: { ...(process.env as Record<string, string>), MCP_BRIDGE_TOKEN: b.bearer },
      stderr: 'pipe',
    });
    const agent = new Client({ name: 'agent', version: '1.0.0' });
    agents.push(agent);
    const changed = countListChanged(agent);
    await agent.connect(transport);
    trackPids(transport.pid ?? undefined);
    expect((await agent.listTools()).tools.map((t) => t.name).sort()).toEqual(['a__echo', 'b__echo']);

    replaceByRename(file, {
      mcpServers: { ...servers, a: nodeEntry(FIXTURE, ['--name', 'a', '--tools', 'echo,whoami']) },
    });
    const after = await waitStatus(b, (s) => ready(s) && s.servers[0].pid !== before.servers[0].pid, 'a restarted');
    b.remember(after.servers[0].pid);
    expect(after.servers[1].pid).toBe(before.servers[1].pid);
    await waitFor(() => changed.count >= 1, 10_000, 'tools/list_changed at the agent');
    await waitFor(
      async () => (await agent.listTools()).tools.map((t) => t.name).includes('a__whoami'),
      10_000,
      "a's new tool at the agent",
    );
    const who = await agent.callTool({ name: 'a__whoami', arguments: {} });
    expect(JSON.parse((who.content as { text: string }[])[0]!.text).pid).toBe(after.servers[0].pid);
    expect((await agent.callTool({ name: 'b__echo', arguments: { text: 'still' } })).content).toEqual([
      { type: 'text', text: expect.stringContaining('still') },
    ]);
  });

  it('follows a symlinked config: writes to its target in another folder, and the link re-pointed to another file', async () => {
    const dir = tempDir();
    for (const d of ['links', 'dotfiles', 'other']) mkdirSync(join(dir, d));
    const target = join(dir, 'dotfiles', 'mcp.json');
    const link = join(dir, 'links', 'mcp.json');
    const a = { a: nodeEntry(FIXTURE, ['--name', 'a', '--tools', 'echo']) };
    writeFileSync(target, JSON.stringify({ mcpServers: a }));
    symlinkSync(target, link);
    const b = await startBridge({ config: link, args: ['--watch'] });
    const aPid = (await b.server('a')).pid;

    // Saved where the link points (an editor following it, the panel): seen, and applied.
    replaceByRename(target, { mcpServers: { ...a, c: nodeEntry(FIXTURE, ['--name', 'c', '--tools', 'echo']) } });
    const added = await waitStatus(b, (s) => s.servers.length === 2 && ready(s), 'c added from the target folder');
    b.remember(...added.servers.map((x) => x.pid));
    expect(pids(added).a).toBe(aPid);

    // The link re-pointed to another file: that file applies, and its own edits are seen from then on.
    const other = join(dir, 'other', 'mcp.json');
    writeFileSync(other, JSON.stringify({ mcpServers: a }));
    const tmpLink = `${link}.new`;
    symlinkSync(other, tmpLink);
    renameSync(tmpLink, link);
    await waitStatus(b, (s) => s.servers.length === 1, 'c removed by the re-pointed link');
    replaceByRename(other, { mcpServers: { ...a, d: nodeEntry(FIXTURE, ['--name', 'd', '--tools', 'echo']) } });
    const withD = await waitStatus(
      b,
      (s) => s.servers.map((x) => x.id).join() === 'a,d' && ready(s),
      'd added in the new target',
    );
    b.remember(...withD.servers.map((x) => x.pid));
    expect(pids(withD).a).toBe(aPid);
  });
});
