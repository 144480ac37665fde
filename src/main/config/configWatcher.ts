/**
 * Watches the user's config file with chokidar and calls back, debounced, after it changed.
 *
 * The folder is watched, not the file: editors save by writing a temporary file and renaming
 * it over the original, which ends a watch on the file itself. The callback only says "look
 * again"; what changed is decided by reading the file (see userConfig.ts).
 */
import { watch, type FSWatcher } from 'chokidar';
import { dirname, resolve } from 'node:path';

export interface ConfigWatcherOptions {
  path: string;
  onChange: () => void;
  /** Quiet time after the last event before `onChange`. Default 300 ms. */
  debounceMs?: number;
  onError?: (err: Error) => void;
}

const READY_TIMEOUT_MS = 5000;

/** A debounced watch of one file. */
export class ConfigWatcher {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly path: string;

  constructor(private readonly opts: ConfigWatcherOptions) {
    this.path = resolve(opts.path);
  }

  /** Starts watching; resolves when chokidar is ready (bounded). */
  async start(): Promise<void> {
    const dir = dirname(this.path);
    const watcher = watch(dir, {
      depth: 0,
      ignoreInitial: true,
      persistent: false,
      ignored: (p: string) => {
        const abs = resolve(p);
        return abs !== dir && abs !== this.path;
      },
    });
    this.watcher = watcher;
    watcher.on('all', (_event, p) => {
      if (resolve(p) === this.path) this.schedule();
    });
    watcher.on('error', (err) => this.opts.onError?.(err instanceof Error ? err : new Error(String(err))));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((r) => watcher.once('ready', () => r())),
      new Promise<void>((r) => (timer = setTimeout(r, READY_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
  }

  /** Stops watching; a pending callback is dropped. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const w = this.watcher;
    this.watcher = undefined;
    await w?.close();
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.closed) this.opts.onChange();
    }, this.opts.debounceMs ?? 300);
  }
}
