/**
 * An agent's own proxy (the app's chain: the stdio aggregation over the bridge's stream links)
 * tells the bridge which tools its sessions loaded by search, so the bridge's `/status` and the
 * panel show them beside the bridge's own sessions (bridge/agentLoadedTools.ts). A snapshot of
 * every such session goes to each bridge the config links to, `POST /economy/sessions` with the
 * entry's own headers (its bearer token); one request at a time, the newest snapshot next.
 * The bridge forgets the reports of a proxy once its pid is gone.
 *
 * In the tool economy's lazily loaded file: it is loaded on the first search, the first time
 * there is something to tell.
 */
import { request } from 'node:http';
import type { Logger } from '../../common/logger.js';
import type { ServerEntry } from '../../config/configTypes.js';
import type { EconomySessionStatus } from '../../../shared/status.js';
import { loadedSessions, type LoadingSession } from './loadedSessions.js';

/** The bridge route a report goes to. */
export const LOADED_REPORT_PATH = '/economy/sessions';

/** A report that takes longer is given up: the next change sends a newer one. */
const REPORT_TIMEOUT_MS = 5_000;

/** What a report carries: the reporting proxy's pid and its sessions that loaded tools. */
export interface LoadedReportBody {
  pid: number;
  sessions: EconomySessionStatus[];
}

interface Target {
  url: URL;
  headers: Record<string, string>;
  sending: boolean;
  /** A snapshot that came while one was on its way: sent when that one is done. */
  next?: string;
}

/** The bridges a config links to (`bridge` entries over http), one per origin. */
export function bridgeTargets(servers: readonly ServerEntry[]): { url: URL; headers: Record<string, string> }[] {
  const byOrigin = new Map<string, { url: URL; headers: Record<string, string> }>();
  for (const s of servers) {
    if (s.kind !== 'remote' || s.type !== 'bridge' || s.disabled) continue;
    const url = new URL(s.url);
    if (url.protocol !== 'http:' || byOrigin.has(url.origin)) continue;
    byOrigin.set(url.origin, { url: new URL(LOADED_REPORT_PATH, url.origin), headers: s.headers });
  }
  return [...byOrigin.values()];
}

export class LoadedReport {
  private last = '';
  private readonly targets: Target[];
  private warned = false;

  constructor(
    private readonly hub: {
      readonly sessions: Iterable<LoadingSession>;
      readonly config: { servers: readonly ServerEntry[] };
    },
    private readonly logger: Logger,
  ) {
    this.targets = bridgeTargets(hub.config.servers).map((t) => ({ ...t, sending: false }));
  }

  /** Something the status shows changed: a new snapshot goes out if what was loaded differs. */
  changed(): void {
    const body: LoadedReportBody = { pid: process.pid, sessions: loadedSessions(this.hub.sessions) };
    const json = JSON.stringify(body);
    if (json === this.last) return;
    this.last = json;
    for (const t of this.targets) this.send(t, json);
  }

  private send(t: Target, json: string): void {
    if (t.sending) {
      t.next = json;
      return;
    }
    t.sending = true;
    let over = false;
    const done = (error?: string) => {
      if (over) return;
      over = true;
      if (error && !this.warned) {
        this.warned = true;
        this.logger.warn(`could not tell the bridge which tools were loaded: ${error}`);
      }
      t.sending = false;
      const next = t.next;
      t.next = undefined;
      if (next !== undefined) this.send(t, next);
    };
    const req = request(t.url, {
      method: 'POST',
      headers: { ...t.headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json) },
      timeout: REPORT_TIMEOUT_MS,
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode === 204 ? undefined : `HTTP ${res.statusCode}`));
      res.on('error', (e) => done(e.message));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${REPORT_TIMEOUT_MS} ms`)));
    req.on('error', (e) => done(e.message));
    req.end(json);
  }
}
