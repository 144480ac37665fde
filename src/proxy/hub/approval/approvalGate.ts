/**
 * The approval policy enforced on one tool call, where the hub routes it (the tool-call
 * pipeline's stage toolCall/approval.ts, which `call_tool` goes through too), so it is taken
 * once per call and path: the rule (approvalRules.ts), then for `ask` the app (`SessionHost.askUser`, the bridge's IPC
 * channel), else a form elicitation to a client that declared it, else a refusal: a tool result
 * with `isError: true` that says why and how to allow the tool (policyRefusal.ts). Every
 * decision is logged with server, tool, who asked, answer and rule; never an argument. Loaded on
 * an aggregate's or a route's first tool call.
 */
import type { RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { Upstream } from '../../upstream/upstream.js';
import type { RoutingSession, SessionHost } from '../sessionContracts.js';
import { DEFAULT_APPROVAL_TIMEOUT_MS } from '../../config/approvalConfig.js';
import { decideApproval, type ApprovalDecision } from './approvalRules.js';
import type { ApprovalReply } from './approvalQuestion.js';
import { callerOf } from './callerTaken.js';
import { refuseToolCall } from '../policyRefusal.js';

export { withoutCaller } from './callerTaken.js';

/** Tools the user answered "Always allow" for, per hub: `<server>\0<tool>`. */
const alwaysAllowed = new WeakMap<SessionHost, Set<string>>();
let questions = 0;

/** The text of a refused call: contains "denied" and how to allow the tool. */
function deniedMessage(exposed: string, u: Upstream, name: string, why: string): string {
  return (
    `Tool "${exposed}" was denied by the approval policy (${why}). To allow it, add ` +
    `"approval": {${JSON.stringify(name)}: "allow"} to server "${u.id}" in the config` +
    ` (or "approval": "off" at the top level for no policy)`
  );
}

/** Whether the client takes a form elicitation: `elicitation: {}` (form only) or `elicitation: {form}`. */
function takesFormElicitation(s: RoutingSession): boolean {
  const e = s.clientCapabilities.elicitation;
  if (s.speaks2026 || typeof e !== 'object' || e === null) return false;
  const modes = e as Record<string, unknown>;
  return modes.form !== undefined || modes.url === undefined;
}

/** A form elicitation to the calling client; its answer, `deny` for a decline, a cancel or no answer. */
async function elicit(
  s: RoutingSession,
  req: RpcRequest,
  u: Upstream,
  name: string,
  timeoutMs: number,
): Promise<ApprovalReply> {
  const res = await s.peer.request(
    'elicitation/create',
    {
      mode: 'form',
      message: `Allow the tool "${name}" of server "${u.id}" to run?`,
      requestedSchema: {
        type: 'object',
        properties: {
          answer: {
            type: 'string',
            title: 'Answer',
            enum: ['once', 'always', 'deny'],
            enumNames: ['Allow once', 'Always allow', 'Deny'],
          },
        },
        required: ['answer'],
      },
    },
    { timeoutMs, relatedRequestId: req.id },
  );
  if ('error' in res) return 'deny';
  const r = res.result as { action?: unknown; content?: { answer?: unknown } };
  if (r.action !== 'accept') return 'deny';
  const a = r.content?.answer;
  return a === 'once' || a === 'always' ? a : 'deny';
}

/**
 * The policy's answer for a tool named `exposed` as an aggregate names it (`<server>__<tool>`),
 * without a call: what the app asks before an agent's own permission prompt (AcpEngine). The
 * name is read with the aggregate's own table, so `a` + `b__c` and `a__b` + `c` are told apart;
 * the answer names the server and tool it is for. Undefined for a name no server here owns, or
 * a server the policy does not apply to.
 */
export function approvalForName(
  hub: SessionHost,
  exposed: string,
): (ApprovalDecision & { server: string; tool: string }) | undefined {
  const owner = hub.resolveTool(exposed);
  const u = owner && hub.upstream(owner.serverId);
  if (!owner || !u || (u.entry.kind === 'remote' && u.entry.type === 'bridge')) return undefined;
  const name = owner.name;
  const tool = u.lists.tools.find((t) => t.name === name);
  if (!tool) return undefined;
  const at = { server: u.id, tool: name };
  const d = decideApproval(hub.config.approval, u.id, name, exposed, tool);
  if (d.answer === 'ask' && alwaysAllowed.get(hub)?.has(`${u.id}\0${name}`))
    return { answer: 'allow', rule: `"Always allow" (asked by ${d.rule})`, ...at };
  hub.logger.info(`approval: server "${u.id}" tool "${name}" for the app's agent: ${d.answer} by ${d.rule}`);
  return { ...d, ...at };
}

/**
 * Applies the policy to the call `req` of tool `name` (called `exposed`) on `u`. Resolves true
 * when the call may go on; false when it was answered here, refused.
 */
export async function approveToolCall(
  hub: SessionHost,
  s: RoutingSession,
  req: RpcRequest,
  u: Upstream,
  name: string,
  exposed: string,
): Promise<boolean> {
  const settings = hub.config.approval;
  const tool = u.lists.tools.find((t) => t.name === name);
  let decision: ApprovalDecision = decideApproval(settings, u.id, name, exposed, tool);
  // Through an agent's stdio proxy, the agent it serves and its session's caller key (callerMeta.ts); else the session's own client.
  // An agent's http entry gave its session's caller key when the session opened (scope.callerKey), which wins.
  const named = callerOf(req.params);
  const callerKey = s.scope.callerKey ?? named?.key;
  const caller =
    named?.name !== undefined
      ? { name: named.name, version: named.version }
      : s.clientName === undefined
        ? undefined
        : { name: s.clientName, version: s.clientVersion };
  const who = `${caller?.name ?? 'a client'} (session ${s.serial})`;
  const log = (answer: string, rule: string) =>
    hub.logger.info(`approval: server "${u.id}" tool "${name}" for ${who}: ${answer} by ${rule}`);
  if (decision.answer === 'off') return true;
  // A refused call is recorded as denied, then answered with a tool result that says why (policyRefusal.ts).
  const refuse = async (why: string): Promise<false> => {
    await refuseToolCall(s, req, deniedMessage(exposed, u, name, why), {
      policy: 'approval',
      server: u.id,
      tool: name,
    });
    return false;
  };
  const key = `${u.id}\0${name}`;
  if (decision.answer === 'ask' && alwaysAllowed.get(hub)?.has(key))
    decision = { answer: 'allow', rule: `"Always allow" (asked by ${decision.rule})` };
  if (decision.answer === 'allow') {
    log('allow', decision.rule);
    return true;
  }
  if (decision.answer === 'deny') {
    log('deny', decision.rule);
    return refuse(decision.rule);
  }
  const timeoutMs = settings?.askTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  const args = (req.params?.arguments ?? {}) as Record<string, unknown>;
  let reply: ApprovalReply = 'none';
  let by = 'the app';
  if (hub.askUser) {
    const id = `${process.pid}-${++questions}`;
    const q = { id, server: u.id, tool: name, session: s.serial, arguments: args, rule: decision.rule, timeoutMs };
    const client = {
      ...(caller === undefined ? {} : { client: caller.name }),
      ...(caller?.version === undefined ? {} : { clientVersion: caller.version }),
      ...(callerKey === undefined ? {} : { callerKey }),
    };
    reply = await hub.askUser({ ...q, ...client });
  }
  if (reply === 'none' && takesFormElicitation(s)) {
    by = 'the client (form elicitation)';
    reply = await elicit(s, req, u, name, timeoutMs);
  }
  if (reply === 'none') {
    log('deny', `${decision.rule}: nobody to ask`);
    return refuse(
      `${decision.rule} says ask, and there is no app to ask and the client did not declare form elicitation`,
    );
  }
  const denied = reply === 'deny' || reply === 'timeout';
  const answered = reply === 'timeout' ? `nobody answered ${by} within ${timeoutMs} ms` : `${by} answered`;
  log(denied ? 'deny' : `allow (${reply})`, `${answered}, asked by ${decision.rule}`);
  if (reply === 'always') {
    let set = alwaysAllowed.get(hub);
    if (!set) alwaysAllowed.set(hub, (set = new Set()));
    set.add(key);
  }
  if (!denied) return true;
  return refuse(reply === 'timeout' ? answered : `the user answered Deny when ${by} asked`);
}
