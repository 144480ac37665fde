// The tool-call stage of the result cap (hub/toolCall/capResult.ts): once it ran, the session
// answers an aggregate's call with a result over the server's maxResultBytes cut; a
// single-server session's answer passes whole.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall } from './stageKit.js';
import { capResult } from '../../../../src/proxy/hub/toolCall/capResult.js';
import type { ToolCall } from '../../../../src/proxy/hub/toolCall/toolCall.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const BIG = { content: [{ type: 'text', text: 'x'.repeat(5000) }] };
const answerBig = (c: ToolCall) => c.s.reply(c.req.id, BIG);

describe('capResult', () => {
  it("cuts an aggregate's answer over the cap, and leaves a single-server session's whole", async () => {
    kit = await startKit([new FakeServer('a')], { maxResultBytes: 2048 });
    const at = await openSession(kit);
    const call = Object.assign(toolCall(kit, at, 'a__big'), { upstream: kit.hub.upstream('a') });
    const cut = await runStage(capResult, call, at, answerBig);
    expect(JSON.stringify(cut.answer?.result).length).toBeLessThanOrEqual(2048);
    const texts = (cut.answer?.result?.content as { text: string }[]).map((c) => c.text);
    expect(texts.at(-1)).toContain('the uri "');

    const single = await openSession(kit, { serverId: 'a' });
    const whole = Object.assign(toolCall(kit, single, 'big'), { upstream: kit.hub.upstream('a') });
    expect((await runStage(capResult, whole, single, answerBig)).answer?.result).toEqual(BIG);
  });
});
