/**
 * An agent's own permission prompt (`session/request_permission`) for a tool of the runtime's
 * aggregate, answered from the bridge's approval policy so the user is asked once: `allow`
 * selects the agent's allow-once option, `deny` its reject-once option (the bridge would refuse
 * the call anyway); `ask`, or a tool the policy does not know, goes to the app as before, and an
 * allow given there is granted to the bridge's own ask for that one call (McpRuntime.grantOnce):
 * this agent session's (its caller key), that tool, the arguments the prompt showed. A prompt that
 * shows no arguments (`rawInput`), or a session without a caller key, grants nothing: the bridge
 * then asks for the call itself.
 */
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ApprovalVerdict } from '../runtime/approvalRequests.js';
import type { CallGrant } from '../runtime/callGrants.js';

/** The policy's side of the runtime (McpRuntime). */
export interface ApprovalRuntimeLike {
  approvalFor?(name: string): Promise<ApprovalVerdict | undefined>;
  grantOnce?(grant: CallGrant): void;
}

/**
 * The aggregate's name of the tool a permission request is for, from the names agents give MCP
 * tools: `mcp__<entry>__<tool>` (Claude Code, Codex) or `mcp_<entry>_<tool>` (gemini-cli), in the
 * tool call's title or `_meta`. Undefined for any other tool.
 */
export function aggregateToolName(req: RequestPermissionRequest, entries: readonly string[]): string | undefined {
  const call = req.toolCall as { title?: unknown; _meta?: Record<string, unknown> } | undefined;
  const meta = call?._meta?.claudeCode as { toolName?: unknown } | undefined;
  for (const raw of [meta?.toolName, call?.title]) {
    if (typeof raw !== 'string') continue;
    const text = raw.trim();
    for (const e of entries)
      for (const prefix of [`mcp__${e}__`, `mcp_${e}_`])
        if (text.startsWith(prefix) && text.length > prefix.length && !/\s/.test(text))
          return text.slice(prefix.length);
  }
  return undefined;
}

const pick = (req: RequestPermissionRequest, kinds: string[]): RequestPermissionResponse | undefined => {
  for (const kind of kinds) {
    const o = req.options.find((x) => x.kind === kind);
    if (o) return { outcome: { outcome: 'selected', optionId: o.optionId } };
  }
  return undefined;
};

/**
 * Answers `req` by the policy when it says allow or deny, else through `ask` (the app).
 * `callerKey`: the caller key of the session `req` is for (AcpEngine). `log` gets one line per
 * decision, never the tool's input.
 */
export async function answerPermission(
  req: RequestPermissionRequest,
  runtime: ApprovalRuntimeLike,
  entries: readonly string[],
  callerKey: string | undefined,
  ask: (req: RequestPermissionRequest) => Promise<RequestPermissionResponse>,
  log: (line: string) => void,
): Promise<RequestPermissionResponse> {
  const name = aggregateToolName(req, entries);
  const verdict = name && runtime.approvalFor ? await runtime.approvalFor(name) : undefined;
  const answer = verdict?.answer === 'off' ? 'allow' : verdict?.answer;
  if (name && verdict && (answer === 'allow' || answer === 'deny')) {
    const res = pick(req, answer === 'allow' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always']);
    if (res) {
      log(
        `approval: the agent's permission prompt for "${name}" (session ${req.sessionId}) answered ${answer} by ${verdict.rule}`,
      );
      return res;
    }
  }
  const res = await ask(req);
  // The grant names the server and tool the bridge read the name as, never the joined name.
  const { server, tool } = verdict ?? {};
  if (server === undefined || tool === undefined || res.outcome.outcome !== 'selected') return res;
  const id = (res.outcome as { optionId: string }).optionId;
  const kind = req.options.find((o) => o.optionId === id)?.kind;
  if (kind !== 'allow_once' && kind !== 'allow_always') return res;
  const args = req.toolCall.rawInput;
  if (callerKey !== undefined && isObject(args)) runtime.grantOnce?.({ callerKey, server, tool, arguments: args });
  else
    log(
      `approval: the allow in the agent's permission prompt for "${name}" (session ${req.sessionId}) is not granted ` +
        `to the bridge (${callerKey === undefined ? 'the session has no caller key' : 'the prompt shows no arguments'}): it asks for the call itself`,
    );
  return res;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
