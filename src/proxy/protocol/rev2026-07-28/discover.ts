/**
 * The proxy's answer to `server/discover` (MCP 2026-07-28), for a session of any scope:
 * once the servers in scope are settled, the versions the proxy serves, the capabilities
 * those servers declare (merged: a kind is there when one server has it), their
 * instructions (merged as for `initialize`) and the proxy's identity. A 2026-07-28 client
 * then goes on with per-request `_meta` and no `initialize`. A discover does not choose the
 * session's era (downstreamSession.ts): a client that probes with it and then sends
 * `initialize` in one of the offered 2025 versions is a 2025 session from there on.
 *
 * Resource `subscribe` is there when a server in scope has it (listen's
 * `resourceSubscriptions`: listenSet.ts), `logging` likewise (per-request levels:
 * logLevels.ts); the tasks extension (`extensions["io.modelcontextprotocol/tasks"]`) when
 * a server in scope takes tasks on `tools/call` in either era (protocol/crossings/heldTasks.ts).
 */
import type { RpcRequest } from '../../jsonrpc/jsonRpc.js';
import { CLIENT_INFO } from '../../upstream/upstream.js';
import type { RoutingSession, SessionHost } from '../../hub/sessionContracts.js';
import { offersTasks } from '../crossings/heldTasks.js';
import { TASKS_EXTENSION } from '../taskShapes.js';
import { META_SERVER_INFO, SERVED_VERSIONS } from './vocabulary.js';
import { withKeptResults } from '../../hub/economy/resultCap.js';
import { rev2026Result } from './envelope.js';

const KINDS = ['tools', 'prompts', 'resources', 'completions'] as const;

/**
 * `resultType` and the cache hints (`ttlMs: 0`: servers start, stop and reload behind the proxy) are
 * envelope.ts `rev2026Result`'s, added here too: a session whose era is not chosen yet adds none.
 */
export async function answerDiscover(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
  await hub.waitReady(s.scope);
  const servers = hub.inScope(s.scope).filter((u) => u.isReady);
  const capabilities: Record<string, unknown> = {};
  // listChanged: the proxy relays list changes on `subscriptions/listen` (listenSet.ts).
  for (const u of servers)
    for (const k of KINDS) if (u.capabilities[k]) capabilities[k] = k === 'completions' ? {} : { listChanged: true };
  if (servers.some((u) => (u.capabilities.resources as { subscribe?: unknown } | undefined)?.subscribe))
    capabilities.resources = { listChanged: true, subscribe: true };
  if (servers.some((u) => u.capabilities.logging)) capabilities.logging = {};
  if (servers.some(offersTasks)) capabilities.extensions = { [TASKS_EXTENSION]: {} };
  const instructions = s.single
    ? (s.single.initResult?.instructions as string | undefined)
    : servers
        .filter((u) => typeof u.initResult?.instructions === 'string')
        .map((u) => `## ${u.id}\n${String(u.initResult!.instructions)}`)
        .join('\n\n');
  const serverInfo = s.single ? (s.single.initResult?.serverInfo ?? CLIENT_INFO) : CLIENT_INFO;
  return s.reply(
    req.id,
    rev2026Result('server/discover', {
      supportedVersions: SERVED_VERSIONS,
      // An aggregate whose results may be cut offers them back as resources (economy/resultCap.ts).
      capabilities: s.single ? capabilities : withKeptResults(capabilities, hub.config),
      ...(instructions ? { instructions } : {}),
      _meta: { [META_SERVER_INFO]: serverInfo },
    }),
  );
}
