/**
 * The recorder a hub hands its sessions: `begin` a call when a request arrives, `end` it when
 * it was answered (or cancelled). The record goes to the ring (activityRing.ts), the health
 * figures of its server (healthWindow.ts), the listeners of `/activity`'s stream and, when
 * configured, the JSONL file (activityFile.ts, loaded then). Values are captured only for a
 * server whose entry says `"capture": true`: its params and result as JSON, masked, cut.
 * A resource URI is recorded masked (recordedUri.ts): a query or userinfo may hold a
 * credential. Loaded, with the ring and the health window, by a hub that records (hub.ts).
 */
import type { ActivityPage, ActivityQuery, ActivityRecord, ServerHealth } from '../../shared/activity.js';
import type { RequestId } from '../jsonrpc/jsonRpc.js';
import type { SecretMask } from '../config/secretMask.js';
import { Call } from './activeCall.js';
import type { ActiveCall, ActivityRecorder } from './activityRecorder.js';
import { ActivityRing } from './activityRing.js';
import { HealthWindow } from './healthWindow.js';
import { ActivityFile } from './activityFile.js';
import { recordedUri } from './recordedUri.js';
import type { Logger } from '../common/logger.js';
import type { ActivitySetting } from '../config/configTypes.js';

/** How much of a captured value is kept, in characters. */
export const CAPTURE_CHARS = 2_048;
/** How much of an error message is kept. */
const ERROR_CHARS = 500;

export interface ActivityLogOptions {
  mask: SecretMask;
  /** Whether a server's values are captured (its entry's `"capture": true`). */
  capture?: (server: string) => boolean;
  maxEntries?: number;
  maxBytes?: number;
  /** Where every record is also written, one JSON line each (activityFile.ts). */
  sink?: (r: ActivityRecord) => void;
  /** Closes the sink, within a bound. */
  closeSink?: () => Promise<void>;
}

/** The log a hub keeps for `setting` (not `off`): in memory, and with `file` also in the data folder. */
export function openActivityLog(
  setting: ActivitySetting,
  opts: ActivityLogOptions & { logger: Logger; dataDir?: string },
): ActivityLog {
  if (setting !== 'file') return new ActivityLog(opts);
  if (!opts.dataDir) {
    opts.logger.warn('"activity": "file" needs a data folder (QIMING_DATA_DIR); the activity log stays in memory');
    return new ActivityLog(opts);
  }
  const file = new ActivityFile(opts.dataDir, opts.logger);
  return new ActivityLog({ ...opts, sink: (r) => file.write(r), closeSink: () => file.close() });
}

export class ActivityLog implements ActivityRecorder {
  readonly ring: ActivityRing;
  readonly health = new HealthWindow();
  private seq = 0;
  private readonly listeners = new Set<(r: ActivityRecord) => void>();
  private readonly sink?: (r: ActivityRecord) => void;

  constructor(private readonly opts: ActivityLogOptions) {
    this.ring = new ActivityRing(opts.maxEntries, opts.maxBytes);
    this.sink = opts.sink;
  }

  captures(server: string | undefined): boolean {
    return server !== undefined && this.opts.capture !== undefined && this.opts.capture(server);
  }

  begin(
    session: number,
    client: string | undefined,
    id: RequestId,
    method: string,
    params?: Record<string, unknown>,
  ): ActiveCall {
    return new Call(id, session, client, method, params);
  }

  end(active: ActiveCall): void {
    const call = active as Call;
    const durationMs = Number(process.hrtime.bigint() - call.startedNs) / 1e6;
    const r: ActivityRecord = {
      seq: ++this.seq,
      at: new Date(call.at).toISOString(),
      session: call.session,
      // The client's text, as long as its message: cut like a name.
      method: call.method.slice(0, 300),
      durationMs: Math.round(durationMs * 10) / 10,
      outcome: call.outcome,
      progress: call.progress,
    };
    if (call.client !== undefined) r.client = call.client;
    if (call.server !== undefined) r.server = call.server;
    const name = call.name;
    if (name !== undefined) r.name = (call.namesUri ? recordedUri(this.opts.mask, name) : name).slice(0, 300);
    if (call.via !== undefined) r.via = call.via;
    if (call.app !== undefined) r.app = call.app;
    if (call.bytesIn !== undefined) r.bytesIn = call.bytesIn;
    if (call.bytesOut !== undefined) r.bytesOut = call.bytesOut;
    if (call.error)
      r.error = {
        code: call.error.code,
        message: this.opts.mask.mask(String(call.error.message)).slice(0, ERROR_CHARS),
      };
    if (this.captures(call.server)) r.captured = this.captured(call);
    this.ring.push(r);
    if (r.server !== undefined && call.method !== 'ping') this.health.add(r.server, r.durationMs, r.outcome);
    this.sink?.(r);
    for (const l of this.listeners) l(r);
  }

  query(q?: ActivityQuery): ActivityPage {
    return this.ring.query(q);
  }

  /** Writes what the file has queued, within a bound. */
  async close(): Promise<void> {
    await this.opts.closeSink?.();
  }

  healthOf(server: string): ServerHealth | undefined {
    return this.health.of(server);
  }

  /** Each new record, until the returned function is called. */
  subscribe(listener: (r: ActivityRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `fn` at most once per `ms`, some time after new records (the status' health figures). */
  onChange(ms: number, fn: () => void): () => void {
    let timer: NodeJS.Timeout | undefined;
    const off = this.subscribe(() => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        fn();
      }, ms);
      timer.unref();
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }

  private captured(call: Call): ActivityRecord['captured'] {
    const out: NonNullable<ActivityRecord['captured']> = {};
    if (call.params !== undefined) out.params = this.cut(call.params);
    if (call.result !== undefined) out.result = this.cut(call.result);
    return out;
  }

  private cut(value: unknown): string {
    let text: string;
    try {
      text = JSON.stringify(value) ?? '';
    } catch {
      text = '(not serialisable)';
    }
    const masked = this.opts.mask.mask(text);
    return masked.length > CAPTURE_CHARS ? `${masked.slice(0, CAPTURE_CHARS)}… (${masked.length} characters)` : masked;
  }
}
