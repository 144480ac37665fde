// The tool-call pipeline's one list (hub/toolCall/toolCallPipeline.ts): its stages in the
// order the policies apply, composed so that a call meets them first to last, and a call of an
// aggregate going through all of them to its server's tool under the server's own name.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall } from './stageKit.js';
import { callTool, TOOL_CALL_STAGES } from '../../../../src/proxy/hub/toolCall/toolCallPipeline.js';
import { composeStages, type ToolCallStage } from '../../../../src/proxy/hub/toolCall/toolCall.js';
import { resolveOwner } from '../../../../src/proxy/hub/toolCall/resolveOwner.js';
import { withheldByPin } from '../../../../src/proxy/hub/toolCall/withheldByPin.js';
import { ownerFound } from '../../../../src/proxy/hub/toolCall/ownerFound.js';
import { allowedByFilter } from '../../../../src/proxy/hub/toolCall/allowedByFilter.js';
import { appVisibility } from '../../../../src/proxy/hub/toolCall/appVisibility.js';
import { approval } from '../../../../src/proxy/hub/toolCall/approval.js';
import { appViewTap } from '../../../../src/proxy/hub/toolCall/appViewTap.js';
import { callerStamp } from '../../../../src/proxy/hub/toolCall/callerStamp.js';
import { capResult } from '../../../../src/proxy/hub/toolCall/capResult.js';
import { toolTimeout } from '../../../../src/proxy/hub/toolCall/toolTimeout.js';
import { tasksExtension } from '../../../../src/proxy/hub/toolCall/tasksExtension.js';
import { taskAugmented } from '../../../../src/proxy/hub/toolCall/taskAugmented.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describe('the tool-call pipeline', () => {
  it('lists the stages in the order the policies apply', () => {
    expect(TOOL_CALL_STAGES).toEqual([
      resolveOwner,
      withheldByPin,
      ownerFound,
      allowedByFilter,
      appVisibility,
      approval,
      appViewTap,
      callerStamp,
      capResult,
      toolTimeout,
      tasksExtension,
      taskAugmented,
    ]);
  });

  it('composes stages so that a call meets them first to last, then the last handler', async () => {
    const seen: string[] = [];
    const mark =
      (name: string): ToolCallStage =>
      (next) =>
      (call) => {
        seen.push(name);
        return next(call);
      };
    kit = await startKit([new FakeServer('a')]);
    const at = await openSession(kit);
    const handle = composeStages([mark('first'), mark('second'), mark('third')], async () => void seen.push('last'));
    await handle(toolCall(kit, at, 'a__x'));
    expect(seen).toEqual(['first', 'second', 'third', 'last']);
  });

  it("takes an aggregate's call through every stage to its server's tool", async () => {
    const a = new FakeServer('a');
    a.tools = [{ name: 'echo', annotations: { readOnlyHint: true } }];
    a.handlers['tools/call'] = (req) => ({ content: [{ type: 'text', text: JSON.stringify(req.params) }] });
    kit = await startKit([a]);
    const at = await openSession(kit);
    const call = toolCall(kit, at, 'a__echo', { arguments: { x: 1 } });
    const { answer } = await runStage(
      (next) => next,
      call,
      at,
      (c) => callTool(kit!.hub, c.s, c.req),
    );
    expect(answer?.result).toEqual({ content: [{ type: 'text', text: '{"name":"echo","arguments":{"x":1}}' }] });
  });
});
