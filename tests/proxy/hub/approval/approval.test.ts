// The approval policy in the CLI's stdio aggregation: answers by glob (the server's name and
// the aggregate's), by annotation (both hint modes), "off", the ask refused when nobody can be
// asked, the ask put to an SDK client that declared form elicitation, call_tool going through
// the policy, and the log: every decision, never an argument value.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectProxy, tempDir, type ProxyHandle } from '../../../helpers/proxyCli.js';
import { FIXTURES } from '../../../helpers/paths.js';
import { parseConfig } from '../../../../src/proxy/config/config.js';

const SERVER = join(FIXTURES, 'annotatedToolsServer.mjs');
/** An argument value that must never reach a log line. */
const SECRET_ARG = 'argument-value-7f3a9c';

const open: ProxyHandle[] = [];
const dirs: { remove: () => void }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
  for (const d of dirs.splice(0)) d.remove();
});

/** A proxy over one annotated server `a`, with `top` merged into the config and `entry` into a's entry. */
async function start(top: Record<string, unknown> = {}, entry: Record<string, unknown> = {}, caps = {}) {
  const dir = tempDir('qiming-approval-');
  dirs.push(dir);
  const ran = join(dir.path, 'ran.txt');
  const config = { ...top, mcpServers: { a: { command: process.execPath, args: [SERVER, '--ran', ran], ...entry } } };
  const h = await connectProxy(['--config', JSON.stringify(config)], caps);
  open.push(h);
  const ranTools = () => (existsSync(ran) ? readFileSync(ran, 'utf8').split('\n').filter(Boolean) : []);
  return { h, ranTools };
}

/** A call's outcome: the tool's text, or the error message. */
async function call(h: ProxyHandle, name: string, args: Record<string, unknown> = { text: SECRET_ARG }) {
  try {
    const r = await h.client.callTool({ name, arguments: args });
    const text = (r.content as { text?: string }[])[0]?.text ?? '';
    return r.isError ? `error: ${text}` : text;
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

describe('approval policy', () => {
  it('answers from annotations by default: read-only and unannotated run, a tool that writes asks', async () => {
    const { h, ranTools } = await start();
    expect(await call(h, 'a__read_notes')).toBe('read_notes ran (text)');
    expect(await call(h, 'a__plain_tool')).toBe('plain_tool ran (text)');
    expect(await call(h, 'a__fetch_page')).toBe('fetch_page ran (text)');
    const refused = await call(h, 'a__delete_note');
    expect(refused).toMatch(/denied/);
    expect(refused).toContain('"approval": {"delete_note": "allow"}');
    expect(refused).toContain('did not declare form elicitation');
    expect(await call(h, 'a__write_note')).toMatch(/denied/);
    expect(ranTools()).toEqual(['read_notes', 'plain_tool', 'fetch_page']);
    // Every decision is logged, with the rule and who asked; no argument value ever.
    expect(h.stderr.join('\n')).toMatch(
      /approval: server "a" tool "read_notes" for test-client \(session \d+\): allow by annotations \(readOnlyHint\)/,
    );
    expect(h.stderr.join('\n')).toMatch(
      /approval: server "a" tool "delete_note" .*: deny by annotations \(destructiveHint\): nobody to ask/,
    );
    expect(h.stderr.join('\n')).not.toContain(SECRET_ARG);
  });

  it('takes the MCP defaults literally with "approvalHints": "spec"', async () => {
    const { h } = await start({ approvalHints: 'spec' });
    expect(await call(h, 'a__read_notes')).toBe('read_notes ran (text)');
    expect(await call(h, 'a__safe_write')).toBe('safe_write ran (text)');
    expect(await call(h, 'a__plain_tool')).toMatch(/denied.*destructiveHint, MCP default true/);
    expect(await call(h, 'a__fetch_page')).toMatch(/denied.*openWorldHint, MCP default true/);
  });

  it("matches globs against the server's name and the aggregate's; the entry wins over the top level", async () => {
    const { h, ranTools } = await start(
      { approval: { 'a__plain*': 'deny', '*_note*': 'deny', 'read_*': 'ask' } },
      { approval: { delete_note: 'allow', '*': 'allow', 'write_*': 'deny' } },
    );
    // The entry's exact key wins over its globs; its strictest glob wins among them.
    expect(await call(h, 'a__delete_note')).toBe('delete_note ran (text)');
    expect(await call(h, 'a__write_note')).toMatch(
      /denied by the approval policy \(mcpServers\.a\.approval\["write_\*"\]\)/,
    );
    expect(await call(h, 'a__plain_tool')).toBe('plain_tool ran (text)');
    expect(ranTools()).toEqual(['delete_note', 'plain_tool']);
  });

  it("applies the top level by the aggregate's name when the entry says nothing", async () => {
    const { h } = await start({ approval: { 'a__plain*': 'deny', 'read_*': 'allow' } });
    expect(await call(h, 'a__plain_tool')).toMatch(/denied by the approval policy \(approval\["a__plain\*"\]\)/);
    expect(await call(h, 'a__read_notes')).toBe('read_notes ran (text)');
    // No rule names delete_note: its annotation asks, and nobody can be asked.
    expect(await call(h, 'a__delete_note')).toMatch(/denied/);
  });

  it('passes every call through with "approval": "off", and one server with its own "off"', async () => {
    const off = await start({ approval: 'off' });
    expect(await call(off.h, 'a__delete_note')).toBe('delete_note ran (text)');
    expect(off.h.stderr.join('\n')).not.toContain('approval:');
    const own = await start({ approval: 'deny' }, { approval: 'off' });
    expect(await call(own.h, 'a__write_note')).toBe('write_note ran (text)');
  });

  it('refuses a bad approval value with a clear error, naming where it is', () => {
    const config = {
      approval: 'maybe',
      approvalTimeoutMs: 0,
      mcpServers: { a: { command: 'x', approval: { '*_delete*': 'never' } } },
    };
    let message = '';
    try {
      parseConfig(config);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('approval must be one of "allow", "ask", "deny", "off"');
    expect(message).toMatch(/approvalTimeoutMs must be/);
    expect(message).toContain('server "a": approval["*_delete*"] must be one of "allow", "ask", "deny"');
  });

  it('asks a client that declared form elicitation, and acts on its answer', async () => {
    const { h, ranTools } = await start({}, {}, { elicitation: {} });
    const asked: Record<string, unknown>[] = [];
    const answers = ['once', 'deny', 'always'];
    h.client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params as Record<string, unknown>);
      const answer = answers.shift();
      return answer === 'deny' ? { action: 'decline' } : { action: 'accept', content: { answer: answer! } };
    });
    expect(await call(h, 'a__delete_note')).toBe('delete_note ran (text)');
    expect(await call(h, 'a__delete_note')).toMatch(/denied.*answered Deny/);
    expect(await call(h, 'a__write_note')).toBe('write_note ran (text)');
    // "Always allow": not asked again.
    expect(await call(h, 'a__write_note')).toBe('write_note ran (text)');
    expect(asked).toHaveLength(3);
    expect(String(asked[0]!.message)).toContain('"delete_note" of server "a"');
    expect(JSON.stringify(asked)).not.toContain(SECRET_ARG);
    expect(ranTools()).toEqual(['delete_note', 'write_note', 'write_note']);
    expect(h.stderr.join('\n')).toMatch(/tool "write_note" .*: allow by "Always allow"/);
  });

  it('puts call_tool through the policy', async () => {
    const { h, ranTools } = await start({ toolExposure: 'search' });
    const via = (name: string) => call(h, 'call_tool', { name, arguments: { text: SECRET_ARG } });
    expect(await via('a__read_notes')).toBe('read_notes ran (text)');
    expect(await via('a__delete_note')).toMatch(/denied/);
    expect(ranTools()).toEqual(['read_notes']);
    expect(h.stderr.join('\n')).not.toContain(SECRET_ARG);
  });
});
