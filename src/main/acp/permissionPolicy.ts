/**
 * An agent's own permission prompt (`session/request_permission`) for a tool of the runtime's
 * aggregate (recognised in the forms each agent sends, docs/agents.md), answered from the
 * bridge's approval policy so the user is asked once (`call_tool` as the tool it calls,
 * `search_tools` allowed: it runs no server's tool): `allow`
 * selects the agent's allow-once option, `deny` its reject-once option (the bridge would refuse
 * the call anyway); `ask`, or a tool the policy does not know, goes to the app as before, and an
 * allow given there is granted to the bridge's own ask for that one call (McpRuntime.grantOnce):
 * this agent session's (its caller key), that tool, the arguments the prompt showed. A prompt that
 * shows no arguments (`rawInput`), or a session without a caller key, grants nothing: the bridge
 * then asks for the call itself.
 *
 * An entry per server (`layout: 'perServer'`, or an http entry per server for a selection)
 * lists that server's tools under their own names: its `<tool>` is read as the aggregate's
 * `<server>__<tool>` (or, under `"toolNaming": "original"`, the tool's own name), and the
 * policy's answer is used only when the bridge read it as that server's tool.
 */
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ApprovalVerdict } from '../runtime/approvalRequests.js';
import { CALL_TOOL, namespacedName, SEARCH_TOOLS } from '../../proxy/index.js';
import type { CallGrant } from '../runtime/callGrants.js';

/** The policy's side of the runtime (McpRuntime). */
export interface ApprovalRuntimeLike {
  approvalFor?(name: string): Promise<ApprovalVerdict | undefined>;
  grantOnce?(grant: CallGrant): void;
}

/**
 * An entry the runtime gave the agent: its name, and for an entry of one server (its tools under
 * their own names) that server's id; a plain name is an entry of the aggregate.
 */
export type SessionEntryRef = string | { name: string; serverId: string };

/** The server and tool a per-server entry's prompt is for (the bridge must read the name as these). */
export interface ToolOwner {
  server: string;
  tool: string;
}

/**
 * How an agent announced a tool call in its `tool_call` session update, before it asked for it:
 * some agents' permission prompts carry no name of their own (Codex) or a bare one (Copilot).
 */
export interface AnnouncedCall {
  title?: string;
  rawInput?: unknown;
}

/**
 * The aggregate's name of the tool a permission request is for, from the names agents give MCP
 * tools (docs/agents.md), for an entry of `entries`; undefined for any other tool:
 * - `mcp__<entry>__<tool>`: Claude Code's title and `_meta.claudeCode.toolName`, qwen-code's
 *   `_meta.toolName`;
 * - `<tool> (<entry> MCP Server)`: gemini-cli's title (`mcp_<entry>_<tool>` in older ones);
 * - `<entry>_<tool>`: OpenCode's title;
 * - the tool's bare name or its title, announced as `<entry>-<tool>`: Copilot;
 * - no title, announced as `mcp.<entry>.<tool>` with `{ server, tool }` input: Codex.
 * A per-server entry's `<tool>` is the aggregate's `<server>__<tool>`.
 */
export function aggregateToolName(
  req: RequestPermissionRequest,
  entries: readonly SessionEntryRef[],
  announced?: AnnouncedCall,
): string | undefined {
  return matchTool(req, entries, announced)?.name;
}

/** {@link aggregateToolName}, with the server and tool a per-server entry's name stands for. */
function matchTool(
  req: RequestPermissionRequest,
  entries: readonly SessionEntryRef[],
  announced?: AnnouncedCall,
): { name: string; owner?: ToolOwner } | undefined {
  for (const ref of entries) {
    const entry = typeof ref === 'string' ? ref : ref.name;
    const tool = entryToolName(req, entry, announced);
    if (tool === undefined) continue;
    if (typeof ref === 'string') return { name: tool };
    return { name: namespacedName(ref.serverId, tool), owner: { server: ref.serverId, tool } };
  }
  return undefined;
}

/** The tool of entry `e` a permission request is for, as the entry names it (see {@link aggregateToolName}). */
function entryToolName(req: RequestPermissionRequest, e: string, announced?: AnnouncedCall): string | undefined {
  const call = req.toolCall as { title?: unknown; _meta?: Record<string, unknown> } | undefined;
  const meta = call?._meta;
  const claude = (meta?.claudeCode as { toolName?: unknown } | undefined)?.toolName;
  const title = typeof call?.title === 'string' ? call.title.trim() : undefined;
  const said = typeof announced?.title === 'string' ? announced.title.trim() : undefined;
  for (const raw of [claude, meta?.toolName, title]) {
    const name = typeof raw === 'string' ? after(raw.trim(), `mcp__${e}__`) : undefined;
    if (name) return name;
  }
  if (title !== undefined) {
    const gemini = title.endsWith(` (${e} MCP Server)`) ? title.slice(0, -` (${e} MCP Server)`.length) : undefined;
    const name = (gemini && oneWord(gemini)) || after(title, `mcp_${e}_`) || after(title, `${e}_`);
    if (name) return name;
  }
  // Copilot asks with the tool's own name or title, after announcing it under its entry.
  const copilot = said === undefined ? undefined : after(said, `${e}-`);
  if (copilot) return copilot;
  // Codex asks with no title, after announcing `mcp.<entry>.<tool>`.
  const codex = said === undefined ? undefined : after(said, `mcp.${e}.`);
  const input = announced?.rawInput as { server?: unknown; tool?: unknown } | undefined;
  if (codex && (input?.server === undefined || (input.server === e && input.tool === codex))) return codex;
  return undefined;
}

/** The largest tool input looked into for the tool `call_tool` calls (gemini-cli sends it as text). */
const MAX_INPUT_CHARS = 64 * 1024;

/**
 * The aggregate's tool a prompt is for, with the arguments the prompt shows for it (its
 * `rawInput`): `call_tool`'s is the tool it calls (its input's `name`, in the prompt's
 * `rawInput`, the announced input, Codex's `arguments`, or gemini-cli's text) with that input's
 * `arguments`, undefined when the input does not say; `search_tools` is `{ search: true }`.
 */
export function promptedTool(
  req: RequestPermissionRequest,
  entries: readonly SessionEntryRef[],
  announced?: AnnouncedCall,
): { name: string; arguments?: unknown; owner?: ToolOwner } | { search: true } | undefined {
  const matched = matchTool(req, entries, announced);
  const name = matched?.name;
  const owner = matched?.owner;
  // A per-server entry lists its server's own tools: none of them is a meta-tool of the aggregate.
  if (owner) {
    const said = announced?.rawInput as { tool?: unknown; arguments?: unknown } | undefined;
    const call = req.toolCall as { rawInput?: unknown };
    const input = call.rawInput ?? (said?.tool === owner.tool ? said.arguments : announced?.rawInput);
    return { name: name!, arguments: input, owner };
  }
  if (name === SEARCH_TOOLS) return { search: true };
  const call = req.toolCall as { rawInput?: unknown; content?: unknown };
  const said = announced?.rawInput as { tool?: unknown; arguments?: unknown } | undefined;
  // A named tool's input: the prompt's (gemini-cli's as text), else the announced one (Codex's is `{ server, tool, arguments }`).
  if (name !== CALL_TOOL)
    return name === undefined
      ? undefined
      : {
          name,
          arguments:
            call.rawInput ?? textInput(call.content) ?? (said?.tool === name ? said.arguments : announced?.rawInput),
        };
  for (const input of [call.rawInput, said, said?.arguments, textInput(call.content)]) {
    const target = (input as { name?: unknown; arguments?: unknown } | undefined)?.name;
    if (typeof input === 'object' && typeof target === 'string' && oneWord(target))
      return { name: target, arguments: (input as { arguments?: unknown }).arguments ?? {} };
  }
  return undefined;
}

/** A tool input sent as the text of the prompt's first content block (gemini-cli), parsed. */
function textInput(content: unknown): unknown {
  const first = Array.isArray(content) ? (content[0] as { content?: { type?: unknown; text?: unknown } }) : undefined;
  const text = first?.content?.type === 'text' ? first.content.text : undefined;
  if (typeof text !== 'string' || text.length > MAX_INPUT_CHARS) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The rest of `text` after `prefix`, when it is one word (a tool name); else undefined. */
function after(text: string, prefix: string): string | undefined {
  return text.startsWith(prefix) ? oneWord(text.slice(prefix.length)) : undefined;
}

function oneWord(text: string): string | undefined {
  return text.length > 0 && !/\s/.test(text) ? text : undefined;
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
 * decision, never the tool's input. `announced`: the agent's `tool_call` update of that call,
 * when it sent one.
 */
export async function answerPermission(
  req: RequestPermissionRequest,
  runtime: ApprovalRuntimeLike,
  entries: readonly SessionEntryRef[],
  callerKey: string | undefined,
  ask: (req: RequestPermissionRequest) => Promise<RequestPermissionResponse>,
  log: (line: string) => void,
  announced?: AnnouncedCall,
): Promise<RequestPermissionResponse> {
  const prompted = promptedTool(req, entries, announced);
  if (prompted && 'search' in prompted) {
    const res = pick(req, ['allow_once', 'allow_always']);
    if (res) {
      log(
        `approval: the agent's permission prompt for "${SEARCH_TOOLS}" (session ${req.sessionId}) answered allow: it runs no server's tool`,
      );
      return res;
    }
  }
  const name = prompted && 'name' in prompted ? prompted.name : undefined;
  const owner = prompted && 'name' in prompted ? prompted.owner : undefined;
  const verdict = name ? await verdictFor(runtime, name, owner) : undefined;
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
  const args = prompted && 'name' in prompted ? prompted.arguments : undefined;
  if (callerKey !== undefined && isObject(args)) runtime.grantOnce?.({ callerKey, server, tool, arguments: args });
  else
    log(
      `approval: the allow in the agent's permission prompt for "${name}" (session ${req.sessionId}) is not granted ` +
        `to the bridge (${callerKey === undefined ? 'the session has no caller key' : 'the prompt shows no arguments'}): it asks for the call itself`,
    );
  return res;
}

/**
 * The policy's verdict for the aggregate's `name`; for a per-server entry's tool (`owner`), only
 * one the bridge read as that server's tool: `name` first, else the tool's own name (what the
 * aggregate calls it under `"toolNaming": "original"`).
 */
async function verdictFor(
  runtime: ApprovalRuntimeLike,
  name: string,
  owner: ToolOwner | undefined,
): Promise<ApprovalVerdict | undefined> {
  if (!runtime.approvalFor) return undefined;
  const verdict = await runtime.approvalFor(name);
  if (!owner) return verdict;
  const owned = (v: ApprovalVerdict | undefined) =>
    v?.server === owner.server && v.tool === owner.tool ? v : undefined;
  if (owned(verdict) || owner.tool === name) return owned(verdict);
  return owned(await runtime.approvalFor(owner.tool));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
