/**
 * The status() snapshot of one server (upstream.ts) for the status endpoint and the panel:
 * its state, times, tools and the tail of its stderr, every text through the secret mask; and
 * the lastError text of a process exit.
 */
import type { ServerLaunchInfo, ServerState, ServerStatus } from '../../shared/status.js';
import type { SecretMask } from '../config/secretMask.js';
import type { InvalidEntry } from '../config/configTypes.js';
import type { Item } from './listCache.js';

/** What status() reads from an Upstream (structural, so this file does not import upstream.ts). */
export interface UpstreamStatusSource {
  readonly id: string;
  readonly transportKind: ServerStatus['transport'];
  readonly state: ServerState;
  readonly pid: number | undefined;
  readonly startedAt?: Date;
  readonly readyAt?: Date;
  readonly restarts: number;
  readonly lastError?: string;
  readonly lists: { readonly tools: Item[] };
}

/** `stderrTail`: the lines to show (stderrNow); `secrets`: the server's logger's mask; `launch`: its spawn's command and PATH. */
export function upstreamStatus(
  u: UpstreamStatusSource,
  sessions: number,
  stderrTail: string[],
  secrets: SecretMask,
  launch?: ServerLaunchInfo,
): ServerStatus {
  return {
    id: u.id,
    transport: u.transportKind,
    state: u.state,
    pid: u.pid,
    startedAt: u.startedAt?.toISOString(),
    readyAt: u.readyAt?.toISOString(),
    restarts: u.restarts,
    tools: u.lists.tools.map((t) => ({
      name: String(t.name),
      ...(t.description ? { description: String(t.description) } : {}),
    })),
    // A server may print its own secrets (an env value, a url with a key): none leave here.
    lastError: u.lastError === undefined ? undefined : secrets.mask(u.lastError),
    stderrTail: stderrTail.map((l) => secrets.mask(l)),
    sessions,
    ...(launch
      ? {
          launch: {
            command: secrets.mask(launch.command),
            path: secrets.mask(launch.path),
            pathFrom: launch.pathFrom,
            ...(launch.argvSecrets ? { argvSecrets: [...launch.argvSecrets] } : {}),
          },
        }
      : {}),
  };
}

/** The status of an entry that could not be read: never started, failed (or disabled) with its reason. */
export function invalidEntryStatus(e: InvalidEntry, secrets: SecretMask): ServerStatus {
  return {
    id: e.id,
    transport: e.transport,
    state: e.disabled ? 'disabled' : 'failed',
    restarts: 0,
    tools: [],
    lastError: secrets.mask(e.reason),
    stderrTail: [],
    sessions: 0,
  };
}

/** The running process's stderr (`now`), or, while a new attempt has said nothing yet, the last one's. */
export function stderrNow(now: string[] | undefined, last: string[]): string[] {
  return now && now.length > 0 ? now : last;
}

/** The lastError of a server whose process exited. */
export function exitText(id: string, code: number | null, signal: string | null): string {
  return `server "${id}" exited ${signal ? `on signal ${signal}` : `with code ${code}`}`;
}
