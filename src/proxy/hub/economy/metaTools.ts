/**
 * The meta-tools of an aggregate that lists by search (toolExposure.ts): `search_tools` finds
 * tools of every server in scope with their full definitions and adds them to the calling
 * session's list (foundTools.ts); `call_tool` calls any tool of the scope, listed or not, as a
 * `tools/call` of that tool's name: the same routing, filters, timeouts, progress (the outer
 * request's `_meta`), cancellation (the outer id), task augmentation, held calls and errors,
 * one in-process hop. Their descriptions say how to use them and what each server is for.
 *
 * A lazily loaded file (scripts/buildProxy.mjs): a start that never lists by search never
 * reads it. The search index (toolSearch.ts, a file of its own) is built on the first search
 * of each state of the lists, and only then loaded.
 */
import type { RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { Item } from '../../upstream/listCache.js';
import type { RoutingSession, SessionHost } from '../sessionContracts.js';
import { FoundTools } from './foundTools.js';
import { CALL_TOOL, META_TOOL_NAMES, SEARCH_TOOLS } from './metaToolNames.js';
import type { SearchableTool, ToolIndex } from './searchTypes.js';
import { serverSummary } from './serverSummary.js';

/** How many tools a search returns unless it asks: a few to choose from, each with its whole schema. */
export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;

/** What one state of the hub's lists (`listsEpoch`) gives the meta-tools. */
interface ListsView {
  readonly epoch: number;
  /** Every tool of the scope, by exposed name. */
  readonly byName: ReadonlyMap<string, SearchableTool>;
  /** The tools always listed: those of the `"expose": "always"` servers. */
  readonly alwaysTools: readonly Item[];
  readonly alwaysServers: ReadonlySet<string>;
  readonly metaTools: readonly Item[];
  index?: Promise<ToolIndex>;
}

const views = new WeakMap<SessionHost, ListsView>();

/** The `tools/list` of an aggregate session in `search` mode: the meta-tools, the always-listed tools, the session's found ones. */
export function searchModeTools(hub: SessionHost, found: FoundTools | undefined): Item[] {
  const v = viewOf(hub);
  const out = [...v.metaTools, ...v.alwaysTools];
  for (const name of found?.list() ?? []) {
    const t = v.byName.get(name);
    if (t && !v.alwaysServers.has(t.serverId)) out.push(t.tool);
  }
  return out;
}

/**
 * Answers a `tools/call` of `search_tools` or `call_tool` from an aggregate session;
 * `callTool` routes a `tools/call` as one to a server's tool (the tool-call pipeline: toolCall/toolCallPipeline.ts).
 */
export async function answerMetaTool(
  hub: SessionHost,
  s: RoutingSession,
  req: RpcRequest,
  callTool: (call: RpcRequest) => Promise<void>,
): Promise<void> {
  const p = req.params ?? {};
  const args = p.arguments ?? {};
  if (!isObject(args)) return s.reply(req.id, toolError(`${String(p.name)}: "arguments" must be an object`));
  if (p.name === SEARCH_TOOLS) return searchTools(hub, s, req, args);

  const name = args.name;
  if (typeof name !== 'string' || name === '')
    return s.reply(req.id, toolError('call_tool needs "name": the name of a tool, as search_tools gives it'));
  if (META_TOOL_NAMES.has(name)) return s.reply(req.id, toolError(`call ${name} directly, not through call_tool`));
  const inner = args.arguments;
  if (inner !== undefined && !isObject(inner))
    return s.reply(req.id, toolError('call_tool: "arguments" must be an object of the tool\'s arguments'));
  // The activity log, its health figures and the trace name the tool that runs, and say it came through call_tool.
  s.through(req.id, CALL_TOOL, name);
  // Everything else of the outer request stays: its `_meta` (progress token, a 2026 envelope), `task`, a 2026 re-issue's input.
  const { name: _outer, arguments: _args, ...rest } = p;
  return callTool({ ...req, params: { ...rest, name, ...(inner === undefined ? {} : { arguments: inner }) } });
}

async function searchTools(
  hub: SessionHost,
  s: RoutingSession,
  req: RpcRequest,
  args: Record<string, unknown>,
): Promise<void> {
  const query = args.query;
  if (typeof query !== 'string' || query.trim() === '')
    return s.reply(req.id, toolError('search_tools needs "query": a few words of what the tool should do'));
  const limit = args.limit;
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isFinite(limit)))
    return s.reply(req.id, toolError(`search_tools: "limit" must be a number from 1 to ${MAX_SEARCH_LIMIT}`));
  await hub.waitReady(s.scope);
  const v = viewOf(hub);
  const index = await (v.index ??= import('./toolSearch.js').then((m) => m.buildToolIndex([...v.byName.values()])));
  const n = limit === undefined ? DEFAULT_SEARCH_LIMIT : Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(limit)));
  const hits = index.search(query, n);
  const structuredContent = { tools: hits.map((h) => definition(h.tool)) };
  await s.reply(req.id, { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent });
  // After the answer, so a client that re-lists on the notice already has the definitions it asked for.
  const joined = (s.found ??= new FoundTools()).add(
    hits.filter((h) => !v.alwaysServers.has(h.serverId)).map((h) => h.name),
  );
  if (joined === 0) return;
  if (hub.exposure.mode() === 'search') s.toolsFound();
  hub.onstatus?.();
}

/** A tool's definition as search_tools returns it. */
function definition(t: Item): Item {
  const out: Item = { name: t.name };
  for (const k of ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'])
    if (t[k] !== undefined) out[k] = t[k];
  return out;
}

function toolError(text: string): Record<string, unknown> {
  return { content: [{ type: 'text', text }], isError: true };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function viewOf(hub: SessionHost): ListsView {
  const known = views.get(hub);
  if (known?.epoch === hub.listsEpoch) return known;
  const tools = hub.toolsByServer();
  // Each server's tools by their own names (the summary of a server that says nothing of itself names a few).
  const own = new Map<string, string[]>();
  for (const { serverId, tool } of tools) {
    const list = own.get(serverId) ?? [];
    list.push(hub.resolveTool(String(tool.name))?.name ?? String(tool.name));
    own.set(serverId, list);
  }
  const lines = new Map<string, string>();
  for (const u of hub.inScope({})) {
    const toolNames = own.get(u.id);
    if (toolNames)
      lines.set(
        u.id,
        serverSummary({ configured: hub.config.serverDescriptions[u.id], initResult: u.initResult, toolNames }),
      );
  }
  const always = new Set(hub.config.exposeAlways);
  const byName = new Map<string, SearchableTool>();
  const alwaysTools: Item[] = [];
  for (const { serverId, tool } of tools) {
    const name = String(tool.name);
    byName.set(name, { name, serverId, tool, serverSummary: lines.get(serverId) });
    if (always.has(serverId)) alwaysTools.push(tool);
  }
  const view: ListsView = {
    epoch: hub.listsEpoch,
    byName,
    alwaysTools,
    alwaysServers: always,
    metaTools: metaToolDefinitions(lines, own, always),
  };
  views.set(hub, view);
  return view;
}

/** The two meta-tools, their descriptions listing the servers in scope. */
function metaToolDefinitions(
  lines: ReadonlyMap<string, string>,
  own: ReadonlyMap<string, readonly string[]>,
  always: ReadonlySet<string>,
): Item[] {
  const servers = [...lines].map(([id, line]) => {
    const n = own.get(id)!.length;
    const listed = always.has(id) ? ', always listed' : '';
    return `- ${id} (${n} tool${n === 1 ? '' : 's'}${listed}): ${line}`;
  });
  const ids = [...lines.keys()].join(', ') || 'none ready yet';
  return [
    {
      name: SEARCH_TOOLS,
      title: 'Search tools',
      description: [
        'Finds tools by what they do. The servers below have more tools than are listed: search with a few words',
        'of the task (e.g. "take a screenshot of a web page"), get the best matches with their full definitions,',
        `then call one by its name (found tools join your tool list) or through ${CALL_TOOL}.`,
        'Servers:',
        ...(servers.length ? servers : ['(none ready yet)']),
      ].join('\n'),
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What you want to do, in a few words' },
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_SEARCH_LIMIT,
            description: `How many tools to return (default ${DEFAULT_SEARCH_LIMIT}, at most ${MAX_SEARCH_LIMIT})`,
          },
        },
        required: ['query'],
      },
      outputSchema: SEARCH_OUTPUT_SCHEMA,
      annotations: { title: 'Search tools', readOnlyHint: true, openWorldHint: false },
    },
    {
      name: CALL_TOOL,
      title: 'Call a tool',
      description: [
        `Calls any tool of these servers by its name as ${SEARCH_TOOLS} gives it, listed or not, with the arguments`,
        "its inputSchema asks for; it answers as that tool does. Search first to learn a tool's name and schema.",
        `Servers: ${ids}.`,
      ].join('\n'),
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: `The tool's name, as ${SEARCH_TOOLS} gives it` },
          arguments: { type: 'object', description: "The tool's arguments, as its inputSchema says" },
        },
        required: ['name'],
      },
    },
  ];
}

const SEARCH_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    tools: {
      type: 'array',
      description: 'The best matches, best first, each a full tool definition',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          title: { type: 'string' },
          description: { type: 'string' },
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object' },
          annotations: { type: 'object' },
        },
        required: ['name', 'inputSchema'],
      },
    },
  },
  required: ['tools'],
};
