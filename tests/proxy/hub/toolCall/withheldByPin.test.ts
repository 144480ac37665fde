// The tool-call stage of tool pinning (hub/toolCall/withheldByPin.ts): a tool whose definition
// drifted from its pin is refused with a tool result saying what changed; any other call goes on.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeServer, startKit, until, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall } from './stageKit.js';
import { resolveOwner } from '../../../../src/proxy/hub/toolCall/resolveOwner.js';
import { withheldByPin } from '../../../../src/proxy/hub/toolCall/withheldByPin.js';
import { REFUSAL_META } from '../../../../src/proxy/hub/policyRefusal.js';

let kit: Kit | undefined;
let pinDir: string | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
  if (pinDir) rmSync(pinDir, { recursive: true, force: true });
});

describe('withheldByPin', () => {
  it('refuses a drifted tool saying what changed, and hands on a pinned one as it is', async () => {
    pinDir = mkdtempSync(join(tmpdir(), 'qiming-stage-pins-'));
    const a = new FakeServer('a');
    a.tools = [
      { name: 'echo', description: 'echoes', inputSchema: { type: 'object' } },
      { name: 'same', description: 'stays', inputSchema: { type: 'object' } },
    ];
    kit = await startKit([a], {}, { pinDir, pinDefault: 'block' });
    const at = await openSession(kit);
    await until(() => kit!.hub.list('tools', {}).length === 2, 'the pinned list');
    a.tools = [{ ...a.tools[0]!, description: 'now does something else' }, a.tools[1]!];
    await a.peer!.notify('notifications/tools/list_changed');
    await until(() => kit!.hub.withheldTool('a__echo', {}) !== undefined, 'the drift');

    const resolve = (name: string) => runStage(resolveOwner, toolCall(kit!, at, name), at).then((o) => o.passed!);
    const refused = await runStage(withheldByPin, await resolve('a__echo'), at);
    expect(refused.passed).toBeUndefined();
    const result = refused.answer!.result!;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('is withheld: its definition changed since it was pinned');
    expect((result._meta as Record<string, unknown>)[REFUSAL_META]).toMatchObject({
      policy: 'pinning',
      server: 'a',
      tool: 'echo',
    });
    const kept = await runStage(withheldByPin, await resolve('a__same'), at);
    expect(kept.passed?.upstream?.id).toBe('a');
  });
});
