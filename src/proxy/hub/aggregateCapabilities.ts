/**
 * The `capabilities` an aggregate session's `initialize` answers with: the union of what the
 * servers in scope declared, so with every server ready it is what a direct connection to
 * them would show together.
 *
 * - tools, prompts, resources: when any server has them, with `listChanged` (the proxy
 *   answers these lists itself and sends list_changed whenever a server's list changes or a
 *   server comes or goes). Resources get `subscribe` when any server has it (a subscription
 *   goes to the server that owns the URI);
 * - logging, completions: when any server has them;
 * - tasks: `list` and `cancel` when any server has them (the proxy merges `tasks/list` and
 *   routes the others by task id: taskRequests.ts), `requests.tools.call` when any server
 *   takes task-augmented tool calls;
 * - experimental: the servers' keys merged.
 *
 * A server that is not ready when the session initialises (still starting: the aggregate
 * `initialize` does not wait for the slowest, initializeWait.ts; or failed) may come up later
 * and be routed to: it counts as tools, prompts, resources with subscribe, logging and
 * completions, requests the proxy answers or routes by name whatever the server turns out to
 * have (an empty list until it is up, then list_changed); never as tasks or experimental keys,
 * which a client would rely on. MCP has no way to change capabilities
 * after `initialize`: what such a server declares reaches the session only as list changes
 * (its tools, prompts, resources), not its tasks, experimental keys or instructions.
 */

interface CapabilitySource {
  readonly isReady: boolean;
  readonly capabilities: Record<string, unknown>;
}

type Caps = Record<string, unknown>;

const NOT_READY: Caps = { tools: {}, prompts: {}, resources: { subscribe: true }, logging: {}, completions: {} };

export function aggregateCapabilities(servers: readonly CapabilitySource[]): Caps {
  const out: Caps = {};
  let experimental: Caps | undefined;
  let tasks: { list?: object; cancel?: object; requests?: { tools: { call: object } } } | undefined;
  for (const server of servers) {
    const c = server.isReady ? server.capabilities : NOT_READY;
    if (c.tools) out.tools = { listChanged: true };
    if (c.prompts) out.prompts = { listChanged: true };
    if (c.resources)
      out.resources =
        (c.resources as Caps).subscribe === true || (out.resources as Caps | undefined)?.subscribe
          ? { subscribe: true, listChanged: true }
          : { listChanged: true };
    if (c.logging) out.logging = {};
    if (c.completions) out.completions = {};
    if (isObject(c.experimental)) experimental = { ...experimental, ...c.experimental };
    const t = c.tasks;
    if (isObject(t)) {
      tasks ??= {};
      if (t.list) tasks.list = {};
      if (t.cancel) tasks.cancel = {};
      const requests = t.requests as { tools?: { call?: unknown } } | undefined;
      if (requests?.tools?.call) tasks.requests = { tools: { call: {} } };
    }
  }
  if (tasks) out.tasks = tasks;
  if (experimental) out.experimental = experimental;
  return out;
}

function isObject(v: unknown): v is Caps {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
