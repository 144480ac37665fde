// The tool-call pipeline's last handler (hub/toolCall/forwardCall.ts): the call goes to its
// owner with the params the stages made and the owner's answer comes back.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall } from './stageKit.js';
import { forwardCall } from '../../../../src/proxy/hub/toolCall/forwardCall.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describe('forwardCall', () => {
  it('sends the params the stages made to the owner and answers with its result', async () => {
    const a = new FakeServer('a');
    a.handlers['tools/call'] = (req) => ({ content: [{ type: 'text', text: String(req.params?.name) }] });
    kit = await startKit([a]);
    const at = await openSession(kit);
    const call = toolCall(kit, at, 'a__echo', { arguments: { x: 1 } });
    Object.assign(call, { upstream: kit.hub.upstream('a'), params: { name: 'echo', arguments: { x: 1 } } });
    const { answer } = await runStage((next) => next, call, at, forwardCall);
    expect(answer?.result).toEqual({ content: [{ type: 'text', text: 'echo' }] });
    expect(a.received('tools/call')[0]!.params).toEqual({ name: 'echo', arguments: { x: 1 } });
  });
});
