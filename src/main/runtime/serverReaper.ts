/**
 * Ending the MCP servers a bridge had started when the bridge itself can no longer do it
 * (it crashed, or missed its stop deadline). Every stdio server leads its own process group
 * (the bridge spawns them `detached`), so `kill(-pid, SIGKILL)` ends the server and whatever
 * it started in its group, even one that ignores stdin EOF.
 *
 * Only the group is signalled, never the bare pid: a pid from an old status may have been
 * reused by an unrelated process, which is almost never the leader of a group with that id.
 */
import { createServer } from 'node:net';
import { isAlive, isRunning, killTree, signalGroup } from '../../proxy/index.js';
import type { ServerStatus } from '../../shared/status.js';

const POLL_MS = 25;

/** The pids of the servers in a status (those that have one). */
export function serverPids(servers: readonly ServerStatus[]): number[] {
  return servers.flatMap((s) => (typeof s.pid === 'number' && s.pid > 0 ? [s.pid] : []));
}

/** SIGKILLs each server's process group (Windows: `taskkill /T /F` on the pid). Never throws. */
export function killServerGroups(pids: readonly number[], platform: NodeJS.Platform = process.platform): void {
  for (const pid of pids) {
    try {
      if (platform === 'win32') {
        if (isAlive(pid)) killTree(pid, 'SIGKILL', platform);
      } else {
        signalGroup(pid, 'SIGKILL');
      }
    } catch {
      // EPERM: not ours (a reused pid). Nothing to do.
    }
  }
}

/**
 * Kills the groups of `pids` that still exist and waits (bounded) until none is left.
 * Resolves with the pids still alive at the deadline (normally none).
 */
export async function reapServers(
  pids: readonly number[],
  timeoutMs: number,
  platform: NodeJS.Platform = process.platform,
): Promise<number[]> {
  // Every group, even when its leader is gone: a child of the leader may remain in it.
  killServerGroups(platform === 'win32' ? pids.filter((p) => isRunning(p, platform)) : pids, platform);
  let left = pids.filter((p) => isRunning(p, platform));
  const deadline = Date.now() + timeoutMs;
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    // The group was SIGKILLed: once its leader is gone, the rest went with the same signal.
    left = left.filter((p) => isRunning(p, platform));
  }
  return left;
}

/**
 * What a stopped bridge leaves to wait for: its servers and its group watcher (a session
 * leader, so a group of its own too). Waits until none of `pids` runs or `graceMs` passed,
 * then kills the groups of those left ({@link reapServers}, at most `forceWaitMs` more).
 * Resolves with the pids still alive at the end (normally none).
 */
export async function awaitGone(
  pids: readonly number[],
  graceMs: number,
  forceWaitMs: number,
  platform: NodeJS.Platform = process.platform,
): Promise<number[]> {
  let left = pids.filter((p) => isRunning(p, platform));
  const deadline = Date.now() + graceMs;
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    left = left.filter((p) => isRunning(p, platform));
  }
  // Every group, even when its leader is gone: a child of the leader may remain in it.
  return reapServers(pids, forceWaitMs, platform);
}

/** A currently free TCP port on 127.0.0.1 (the bridge binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('could not pick a free port'))));
    });
  });
}
