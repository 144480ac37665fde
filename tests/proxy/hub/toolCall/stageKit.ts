// Runs one stage of the tool-call pipeline (src/proxy/hub/toolCall/) on a real hub and a real
// session over in-memory transports (hubKit.ts): what the stage handed on to the next one, or
// the answer the session's client received instead.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { DownstreamSession } from '../../../../src/proxy/hub/downstreamSession.js';
import type { RpcRequest } from '../../../../src/proxy/jsonrpc/jsonRpc.js';
import {
  newToolCall,
  type ToolCall,
  type ToolCallHandler,
  type ToolCallStage,
} from '../../../../src/proxy/hub/toolCall/toolCall.js';
import { memoryPair } from '../memoryPair.js';
import { until, type Kit } from '../hubKit.js';

type Obj = Record<string, unknown>;

/** A session of `kit`'s hub in `scope`, and every message its client received. */
export interface StageSession {
  session: DownstreamSession;
  received: JSONRPCMessage[];
  /** Sends `message` from the client (a request the session handles as any other). */
  send(message: JSONRPCMessage): Promise<void>;
}

export async function openSession(kit: Kit, scope: { serverId?: string } = {}): Promise<StageSession> {
  const [down, up] = memoryPair();
  const session = kit.hub.connect(up, scope);
  await session.start();
  const received: JSONRPCMessage[] = [];
  down.onmessage = (m) => void received.push(m);
  await down.start();
  await kit.hub.waitReady(scope);
  return { session, received, send: (m) => down.send(m) };
}

let ids = 0;

/** A `tools/call` of `name` (more params in `extra`) by `at`'s session, before any stage. */
export function toolCall(kit: Kit, at: StageSession, name: string, extra: Obj = {}): ToolCall {
  const req: RpcRequest = { jsonrpc: '2.0', id: `stage-${++ids}`, method: 'tools/call', params: { name, ...extra } };
  return newToolCall(kit.hub, at.session, req);
}

/** What running `stage` on `call` gave: the call it handed on, or the client's answer (a result or an error). */
export interface StageOutcome {
  passed?: ToolCall;
  answer?: { result?: Obj; error?: { code: number; message: string; data?: unknown } };
}

/** Runs `stage` on `call` with a `next` that records what it was given (and, if set, goes on to `after`). */
export async function runStage(
  stage: ToolCallStage,
  call: ToolCall,
  at: StageSession,
  after?: ToolCallHandler,
): Promise<StageOutcome> {
  let passed: ToolCall | undefined;
  await stage(async (c) => {
    passed = c;
    await after?.(c);
  })(call);
  if (passed && !after) return { passed };
  await until(
    () => at.received.some((m) => (m as { id?: unknown }).id === call.req.id),
    `the answer to ${call.req.id}`,
  );
  const answer = at.received.find((m) => (m as { id?: unknown }).id === call.req.id) as StageOutcome['answer'];
  return { passed, answer };
}
