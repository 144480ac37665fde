/**
 * What a downstream session's `initialize` is answered with: in single scope the server's
 * own result (under the negotiated protocol version), in aggregate scope the proxy's, with
 * the capabilities the servers in scope declared (aggregateCapabilities.ts) and their
 * `instructions` merged under a heading per server. A single-scope answer waits (bounded by
 * the ready window) for its server's first start, since it is that server's own; an
 * aggregate one does not wait for the slowest server (initializeWait.ts).
 */
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../common/protocolVersion.js';
import { CLIENT_INFO } from '../upstream/upstream.js';
import { META_SERVER_PROTOCOL, REV2026_PROTOCOL_VERSION } from '../protocol/rev2026-07-28/vocabulary.js';
import { aggregateCapabilities } from './aggregateCapabilities.js';
import { withKeptResults } from './economy/resultCap.js';
import { initializeWait } from './initializeWait.js';
import type { SessionHost, SessionScope } from './sessionContracts.js';

export async function initializeResult(
  hub: SessionHost,
  scope: SessionScope,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const asked = String(params.protocolVersion ?? '');
  const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
  await (scope.serverId !== undefined
    ? hub.waitReady(scope)
    : initializeWait(hub.inScope(scope), hub.readyWindowLeftMs(scope)));
  const servers = hub.inScope(scope);
  if (scope.serverId !== undefined) {
    const own = servers[0]?.initResult ?? {};
    if (own.protocolVersion !== REV2026_PROTOCOL_VERSION) return { ...own, protocolVersion };
    // A 2026 server answered under a 2025 version: marked, for a proxy of ours in front (the stream link).
    return {
      ...own,
      protocolVersion,
      _meta: {
        ...(own._meta as Record<string, unknown> | undefined),
        [META_SERVER_PROTOCOL]: REV2026_PROTOCOL_VERSION,
      },
    };
  }
  const instructions = servers
    .filter((x) => typeof x.initResult?.instructions === 'string')
    .map((x) => `## ${x.id}\n${String(x.initResult!.instructions)}`)
    .join('\n\n');
  return {
    protocolVersion,
    capabilities: withKeptResults(aggregateCapabilities(servers), hub.config),
    serverInfo: CLIENT_INFO,
    ...(instructions ? { instructions } : {}),
  };
}
