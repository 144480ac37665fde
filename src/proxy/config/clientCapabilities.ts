/**
 * Which client capabilities the proxy declares in its `initialize` to an upstream.
 *
 * The proxy answers a server's sampling, elicitation and roots requests by passing them to
 * one of its own clients (see serverRequestRouter.ts), but an upstream is initialised once,
 * before any of those clients exists. A server reads the declared capabilities to decide what
 * it offers (server-everything registers `trigger-sampling-request` only for a client with
 * sampling), so declaring what no client can answer offers agents tools they cannot serve.
 *
 * Rule: declare only what the config says the app's clients can answer; the default is none,
 * which is what the app's ACP agents declare. `clientCapabilities` at the top level sets the
 * default for every server, an entry's own value wins per key. What is declared is all the
 * proxy can route for that flag: elicitation in both modes (form and URL), and tasks (list,
 * cancel, task-augmented sampling and elicitation, for the flags declared) whenever sampling
 * or elicitation is, unless `tasks` is false. A session that lacks a part gets what the hub
 * decides (serverRequestRouter.ts): -32601 for a mode it did not declare, the request without
 * its `task` field for task augmentation it did not declare.
 *
 * MCP Apps (`io.modelcontextprotocol/ui`) is declared to every server unless the top-level
 * `"apps": false` sets `apps: false` here: the proxy renders views itself (src/proxy/apps/),
 * so no client needs to.
 */
import { APPS_CAPABILITY, APPS_EXTENSION } from '../apps/appsExtension.js';

export const CLIENT_CAPABILITY_NAMES = ['sampling', 'elicitation', 'roots', 'tasks'] as const;
export type ClientCapabilityName = (typeof CLIENT_CAPABILITY_NAMES)[number];
export type ClientCapabilityFlags = Partial<Record<ClientCapabilityName | 'apps', boolean>>;

/** The `capabilities` object of the proxy's `initialize` for these flags. */
export function declaredCapabilities(flags: ClientCapabilityFlags = {}): Record<string, unknown> {
  const caps: Record<string, unknown> = {};
  // Sampling with `tools`/`toolChoice` (2025-11-25) is passed through like any other sampling.
  if (flags.sampling) caps.sampling = { tools: {} };
  if (flags.elicitation) caps.elicitation = { form: {}, url: {} };
  // The proxy forwards its clients' notifications/roots/list_changed.
  if (flags.roots) caps.roots = { listChanged: true };
  if ((flags.sampling || flags.elicitation) && flags.tasks !== false) {
    const requests: Record<string, unknown> = {};
    if (flags.sampling) requests.sampling = { createMessage: {} };
    if (flags.elicitation) requests.elicitation = { create: {} };
    caps.tasks = { list: {}, cancel: {}, requests };
  }
  if (flags.apps !== false) caps.extensions = { [APPS_EXTENSION]: APPS_CAPABILITY };
  return caps;
}
