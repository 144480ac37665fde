/**
 * Incremental config reload inside the running bridge. The config is read again (the same
 * loader, so the same messages as at start), compared with what runs (configDiff.ts), and
 * only the difference is applied: removed servers stopped (whole process tree), changed ones
 * restarted on their new entry, added ones started, top-level options applied in place;
 * every other server keeps its process, its sessions and its calls in flight. Reloads are
 * serialised. A file that cannot be used (not JSON, a bad top level) changes nothing and is
 * reported (log, status). A bad entry is judged alone: one that was running keeps running on
 * its previous entry (reported as not applied, in the status's `configError`); one that was
 * not is shown as failed with its reason; the other entries' changes apply.
 *
 * Triggers: `POST /config/reload` (the app's runtime), SIGHUP, `--watch`, and the bridge's
 * own panel routes after each change they write (bridgeMode.ts).
 */
import type { InvalidEntry, ProxyConfig } from '../config/config.js';
import { describeDiff, diffConfigs, isEmptyDiff } from '../config/configDiff.js';
import { errorText, type Logger } from '../common/logger.js';
import type { Hub } from '../hub/hub.js';
import type { ConfigReloadResult } from '../../shared/status.js';

/** What a reload did, by server id (the body of `POST /config/reload`). */
export type ReloadResult = ConfigReloadResult;

export interface BridgeReloaderOptions {
  hub: Hub;
  /** Reads the config again; throws ConfigError (or any error) when it is unusable. */
  load: () => ProxyConfig | Promise<ProxyConfig>;
  logger: Logger;
  /** The problem of the last reload, or undefined once one succeeded (for the status). */
  onProblem: (error: string | undefined) => void;
}

/** Applies config changes to a running hub (see the file comment). */
export class BridgeReloader {
  private running: ProxyConfig;
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: BridgeReloaderOptions) {
    this.running = o.hub.config;
  }

  /** Re-reads and applies the config, after any reload still running; never rejects. */
  reload(reason: string): Promise<ReloadResult> {
    const next = this.queue
      .then(() => this.apply(reason))
      .catch((err: unknown): ReloadResult => {
        this.o.logger.error(`config reload (${reason}) failed: ${errorText(err)}`);
        return { ok: false, error: errorText(err) };
      });
    this.queue = next;
    return next;
  }

  /** Further reloads do nothing (the bridge is stopping). */
  stop(): void {
    this.stopped = true;
  }

  private async apply(reason: string): Promise<ReloadResult> {
    if (this.stopped) return { ok: false, error: 'the bridge is stopping' };
    const log = this.o.logger;
    let next: ProxyConfig;
    try {
      next = await this.o.load();
    } catch (err) {
      const error = errorText(err);
      log.error(`config not applied (${reason}); the servers keep running as they were: ${error}`);
      this.o.onProblem(error);
      return { ok: false, error };
    }
    const { effective, failed, kept } = judgeInvalid(this.running, next);
    for (const e of next.invalid ?? []) log.error(`config entry not applied (${reason}): ${e.issues.join('; ')}`);
    this.o.onProblem(
      kept.length
        ? kept.map((e) => `server "${e.id}" keeps running on its previous entry: ${e.reason}`).join('\n')
        : undefined,
    );
    const diff = diffConfigs(this.running, effective);
    this.running = effective;
    this.o.hub.setInvalid(failed);
    const result: ReloadResult = {
      ok: true,
      added: diff.added.map((s) => s.id),
      removed: diff.removed,
      restarted: diff.changed.map((s) => s.id),
      unchanged: diff.unchanged,
      options: Object.keys(diff.options),
      ...(next.invalid?.length ? { invalid: next.invalid.map((e) => e.id) } : {}),
    };
    log.info(`config reloaded (${reason}): ${describeDiff(diff)}`);
    if (isEmptyDiff(diff)) return result;
    const hub = this.o.hub;
    hub.setOptions(diff.options);
    await Promise.all(
      diff.removed.map((id) => hub.removeUpstream(id, `server "${id}" was removed from the bridge's config`)),
    );
    // Replaced and added servers are started, not awaited: the answer says what was done,
    // and the status (or /events) shows them become ready.
    // Stopping meanwhile: start nothing the shutdown may already have passed over.
    if (this.stopped) return result;
    const starting = await Promise.all([...diff.changed, ...diff.added].map((entry) => hub.putUpstream(entry)));
    if (this.stopped) return result;
    for (const u of starting) void u.start().catch((err) => log.error(`${u.id}: start failed: ${errorText(err)}`));
    return result;
  }
}

/**
 * The config to run after a reload that found bad entries in `next`: an entry that runs now
 * stays as it is (`kept`), any other is `failed` (shown in the status, not started).
 */
function judgeInvalid(
  running: ProxyConfig,
  next: ProxyConfig,
): { effective: ProxyConfig; failed: InvalidEntry[]; kept: InvalidEntry[] } {
  const before = new Map(running.servers.map((s) => [s.id, s]));
  const { invalid = [], ...options } = next;
  const kept = invalid.filter((e) => before.has(e.id));
  const failed = invalid.filter((e) => !before.has(e.id));
  // A kept entry keeps how it was presented too (its `expose`, its `description`).
  const keptIds = new Set(kept.map((e) => e.id));
  const exposeAlways = [...options.exposeAlways, ...running.exposeAlways.filter((id) => keptIds.has(id))];
  const serverDescriptions = { ...options.serverDescriptions };
  for (const [id, d] of Object.entries(running.serverDescriptions)) if (keptIds.has(id)) serverDescriptions[id] = d;
  return {
    effective: {
      ...options,
      exposeAlways,
      serverDescriptions,
      servers: [...next.servers, ...kept.map((e) => before.get(e.id)!)],
    },
    failed,
    kept,
  };
}
