// A tool call a policy refuses (the approval policy's deny, an ask nobody can answer, the tool
// filters, pinning's withheld tool) is answered with a tool result the client gives its model:
// `isError: true`, a text saying why and how to allow the tool, `_meta` naming the policy. The
// same through `call_tool`, and through the agents' chain (stdio proxy → stream link → bridge),
// where the bridge refuses. A tool that does not exist stays a JSON-RPC error. The built CLI,
// the bridge, real fixture servers, SDK clients.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectProxy, tempDir, waitFor, type ProxyHandle } from '../../helpers/proxyCli.js';
import { cleanupBridges, startBridge } from '../../helpers/bridgeProcess.js';
import { FIXTURES } from '../../helpers/paths.js';
import { launchPinPath } from '../../helpers/pinPaths.js';

const NOTES = join(FIXTURES, 'annotatedToolsServer.mjs');
const DRIFT = join(FIXTURES, 'driftServer.mjs');
const REFUSAL = 'dev.qiming/refusal';

const open: ProxyHandle[] = [];
const dirs: { path: string; remove: () => void }[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  await cleanupBridges();
  for (const d of dirs.splice(0)) d.remove();
});

function folder(): string {
  const d = tempDir('qiming-refusal-');
  dirs.push(d);
  return d.path;
}

/** `notes` denies delete_note, hides fetch_page, and asks for write_note (nobody to ask here). */
const notesEntry = (ran: string) => ({
  command: process.execPath,
  args: [NOTES, '--ran', ran],
  approval: { delete_note: 'deny' },
  denyTools: ['fetch_page'],
});

type Result = { content: { type: string; text: string }[]; isError?: boolean; _meta?: Record<string, unknown> };

/** The stdio aggregation of `servers` in search mode (so call_tool is there), pins in `dir`. */
async function aggregate(dir: string, servers: Record<string, unknown>): Promise<ProxyHandle> {
  const config = { toolExposure: 'search', mcpServers: servers };
  const h = await connectProxy(
    ['--config', JSON.stringify(config), '--no-watchdog'],
    {},
    {
      QIMING_PINS_DIR: join(dir, 'pins'),
      QIMING_PINNING: '',
    },
  );
  open.push(h);
  return h;
}

const ranOf = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

describe('a refused tool call is a tool result that says why and how to allow the tool', () => {
  it('in the stdio aggregation: approval deny, an ask nobody answers, a filtered tool, a withheld one; directly and through call_tool', async () => {
    const dir = folder();
    const ran = join(dir, 'ran.txt');
    const phase = join(dir, 'phase');
    const servers = { notes: notesEntry(ran), d: { command: process.execPath, args: [DRIFT, 'description', phase] } };
    // The first run pins `echo`; the second finds it changed.
    const first = await aggregate(dir, servers);
    await first.client.callTool({ name: 'call_tool', arguments: { name: 'd__echo', arguments: { text: 'pin' } } });
    await waitFor(() => existsSync(launchPinPath(join(dir, 'pins'), servers.d)), 10_000, "d's pins");
    await first.close();
    open.splice(open.indexOf(first), 1);
    writeFileSync(phase, 'after');
    const h = await aggregate(dir, servers);

    const direct = async (name: string, args: Record<string, unknown> = { text: 'x' }) =>
      (await h.client.callTool({ name, arguments: args })) as Result;
    const viaCallTool = async (name: string, args: Record<string, unknown> = { text: 'x' }) =>
      (await h.client.callTool({ name: 'call_tool', arguments: { name, arguments: args } })) as Result;

    const cases: [string, RegExp, Record<string, unknown>][] = [
      [
        'notes__delete_note',
        /^Tool "notes__delete_note" was denied by the approval policy \(mcpServers\.notes\.approval\["delete_note"\]\)\. To allow it, add "approval": \{"delete_note": "allow"\} to server "notes" in the config/,
        { policy: 'approval', server: 'notes', tool: 'delete_note' },
      ],
      [
        'notes__write_note',
        /^Tool "notes__write_note" was denied by the approval policy \(annotations .* says ask, and there is no app to ask and the client did not declare form elicitation\)\. To allow it, add "approval": \{"write_note": "allow"\}/,
        { policy: 'approval', server: 'notes', tool: 'write_note' },
      ],
      [
        'notes__fetch_page',
        /^Tool notes__fetch_page is not allowed by the proxy configuration: the tool filters of server "notes" hide "fetch_page"\. To allow it, take it out of that server's "denyTools"/,
        { policy: 'filter', server: 'notes', tool: 'fetch_page' },
      ],
      [
        'd__echo',
        /^Tool d__echo of server "d" is withheld: its definition changed since it was pinned \(description changed\); accept or reject the change in the panel$/,
        { policy: 'pinning', server: 'd', tool: 'echo', change: 'changed', fields: ['description'] },
      ],
    ];
    for (const [name, text, detail] of cases) {
      const res = await direct(name);
      expect(res.isError, name).toBe(true);
      expect(res.content, name).toHaveLength(1);
      expect(res.content[0]!.type, name).toBe('text');
      expect(res.content[0]!.text, name).toMatch(text);
      expect(res._meta?.[REFUSAL], name).toMatchObject(detail);
      expect(await viaCallTool(name), `${name} through call_tool`).toEqual(res);
    }
    // None of them reached a server; a tool that does not exist is still a protocol error.
    expect(ranOf(ran)).toEqual([]);
    await expect(direct('notes__nope')).rejects.toThrow(/-32602.*Unknown tool: notes__nope/);
    expect(await direct('notes__read_notes')).toEqual({ content: [{ type: 'text', text: 'read_notes ran (text)' }] });
  }, 90_000);

  it("through the agents' chain, the bridge's refusal reaches the agent as the same tool result", async () => {
    const ran = join(folder(), 'ran.txt');
    const b = await startBridge({ config: { mcpServers: { notes: notesEntry(ran) } } });
    const link = {
      type: 'bridge',
      url: `${b.url}/mcp/notes`,
      headers: { Authorization: 'Bearer ${MCP_BRIDGE_TOKEN}' },
    };
    const chain = await connectProxy(
      ['--config', JSON.stringify({ mcpServers: { notes: link } }), '--no-watchdog'],
      {},
      {
        MCP_BRIDGE_TOKEN: b.token!,
      },
    );
    open.push(chain);
    // The bridge's route the chain reaches, called directly: the same result (the tool as that route names it).
    const { client: route } = await b.client('/mcp/notes');
    for (const tool of ['delete_note', 'write_note']) {
      const viaChain = (await chain.client.callTool({ name: `notes__${tool}`, arguments: { text: 'x' } })) as Result;
      expect(viaChain.isError, tool).toBe(true);
      expect(viaChain.content[0]!.text, tool).toMatch(
        new RegExp(
          `^Tool "${tool}" was denied by the approval policy .* To allow it, add "approval": \\{"${tool}": "allow"\\}`,
        ),
      );
      expect(viaChain._meta?.[REFUSAL], tool).toEqual({ policy: 'approval', server: 'notes', tool });
      expect(await route.callTool({ name: tool, arguments: { text: 'x' } }), tool).toEqual(viaChain);
    }
    expect(ranOf(ran)).toEqual([]);
  }, 90_000);
});
