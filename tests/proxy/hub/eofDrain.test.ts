// Every request received before stdin EOF gets an answer: a list waiting for a server that
// is still starting is answered with that server's tools (the drain lasts as long as the
// ready window), and a request that cannot be answered in time gets an error, never silence.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FIXTURES } from '../../helpers/paths.js';
import { CliProcess, INIT, cleanup, configJson } from '../../helpers/cliProcess.js';

const SLOW = join(FIXTURES, 'slowStartServer.mjs');

afterEach(cleanup);

function slowEntry(delayMs: number) {
  return { command: process.execPath, args: [SLOW, '--delay-ms', String(delayMs)] };
}

describe('requests received before stdin EOF', () => {
  it('answers a tools/list that waits for a server still starting past the drain bound', async () => {
    const p = new CliProcess([
      '--config',
      configJson({ slow: slowEntry(3000) }),
      '--drain-timeout',
      '1000',
      '--ready-timeout',
      '20000',
    ]);
    p.send(INIT);
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    p.child.stdin!.end();
    const exit = await p.waitExit(20_000);
    expect(exit.code).toBe(0);
    const byId = new Map(p.messages().map((m) => [m.id, m]));
    expect(byId.get(1)?.result?.protocolVersion).toBeTruthy();
    const names = (byId.get(2)?.result?.tools ?? []).map((t: { name: string }) => t.name);
    expect(names).toContain('slow__echo');
  });

  it('answers a request still unanswered at the drain bound with an error', async () => {
    const p = new CliProcess(['--config', configJson({ slow: slowEntry(0) }), '--drain-timeout', '1000']);
    await p.initialize();
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await p.reply(2);
    const gate = join(FIXTURES, `never-${process.pid}-${Date.now()}`);
    p.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow__block', arguments: { gate } } });
    // The server entered the tool (it blocks its event loop): now end the input.
    const { existsSync, rmSync } = await import('node:fs');
    const t0 = Date.now();
    while (!existsSync(`${gate}.entered`) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
    rmSync(`${gate}.entered`, { force: true });
    p.child.stdin!.end();
    const exit = await p.waitExit(15_000);
    expect(exit.code).toBe(0);
    const answer = p.messages().find((m) => m.id === 3);
    expect(answer?.error?.message).toMatch(/input ended/);
  });
});
