/**
 * One run of the bridge: its process and the client that follows its `/events`, as the
 * runtime starts it and tracks it until it exits or is replaced.
 */
import { BridgeProcess, type BridgeProcessOptions } from './bridgeProcess.js';
import { BridgeClient } from './bridgeClient.js';
import type { BridgeInfo } from './runtimeTypes.js';

export interface BridgeRun {
  proc: BridgeProcess;
  client: BridgeClient;
  unsubscribe?: () => void;
  info?: BridgeInfo;
  readyAt?: number;
  /** The bridge's group watcher, from its status (waited for at stop). */
  watcherPid?: number;
  replaced: boolean;
}

/** Spawns the bridge on `port` with `token` and a client for its `/events` (not yet subscribed). */
export function startBridgeRun(o: Omit<BridgeProcessOptions, 'shutdownTimeoutMs'>): BridgeRun {
  // The bound of a stop the bridge starts by itself (stdin EOF, a signal, the channel closing);
  // McpRuntime.stop passes its own over IPC.
  const proc = new BridgeProcess({ ...o, shutdownTimeoutMs: 2000 });
  return { proc, client: new BridgeClient({ baseUrl: `http://127.0.0.1:${o.port}`, token: o.token }), replaced: false };
}
