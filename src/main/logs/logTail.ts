// src/main/logs/: the shared proxy log file and its tail into electron-log.
/**
 * Tails the proxies' shared log file (`MCP_PROXY_LOG_FILE`) into entries.
 *
 * How it stays exact: chokidar events and a slow poll only *wake* the reader; every read is a
 * positional read of the bytes between the saved offset and the size seen at wake-up, so no
 * event can make it skip or repeat bytes. Each open file is a {@link LogCursor} (logCursor.ts:
 * offset, truncation signature, partial line, pending entry); this file decides which files
 * are read, when, and in what order.
 *
 * - Truncation (size below the offset, or the bytes just before the offset changed): what was
 *   already read stays delivered; reading restarts at 0. Bytes written before the truncation
 *   but not yet read when it happened are gone with the truncation, which no reader can help.
 * - Deletion, replacement or rotation by rename (the path's inode changes): the old file is
 *   read to its end first and then kept open, and re-read to its end before every later read
 *   of the new file, for {@link RETIRED_FILE_GRACE_MS}; a writer that opened the old name just
 *   before the rename may still append to it. The new file is read from 0. A file that is
 *   renamed away and replaced again before the tail first looks at it is never seen (the tail
 *   follows the name and the files it already holds open), so rotate at most once a wake-up.
 */
import { watch, type FSWatcher } from 'chokidar';
import { mkdir, open } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { within } from '../../proxy/index.js';
import { LogCursor } from './logCursor.js';
import type { LogEntry } from './logEntryParser.js';
import { statOrUndefined } from './logFileReads.js';

/** An entry delivered by {@link LogTail}. */
export type TailEntry = LogEntry;

export interface LogTailOptions {
  /** The file to tail; it and its folder are created when missing. */
  path: string;
  /** Called once per entry, in file order. Exceptions are caught and passed to `onError`. */
  onEntry: (entry: TailEntry) => void;
  /** Safety poll interval in ms (the timer is unref'd). Default {@link DEFAULT_POLL_MS}. */
  pollMs?: number;
  /**
   * Where to begin in the file that exists at `start()`. Default `'end'`: the file outlives app
   * runs, and re-reading it would forward old sessions into electron-log again. Start the tail
   * before any proxy so nothing of this run is missed. A file that appears later (re-created,
   * rotated) is always read from its start.
   */
  startAt?: 'end' | 'start';
  /** How long the last entry waits for continuation lines before delivery. Default 100 ms. */
  entryFlushMs?: number;
  /** Read and watcher errors; the tail keeps going. */
  onError?: (err: Error) => void;
}

export const DEFAULT_POLL_MS = 1000;
export const DEFAULT_ENTRY_FLUSH_MS = 100;
/** How long a renamed-away or deleted file is still re-read for late appends. */
export const RETIRED_FILE_GRACE_MS = 2000;
const READ_CHUNK_BYTES = 64 * 1024;
const WATCHER_READY_TIMEOUT_MS = 5000;
const STOP_DEADLINE_MS = 3000;

/** Follows one log file and delivers its entries exactly once, in order. */
export class LogTail {
  /** The absolute path tailed. */
  readonly path: string;
  private readonly opts: Required<Omit<LogTailOptions, 'onError'>> & Pick<LogTailOptions, 'onError'>;
  private state: 'new' | 'started' | 'stopping' | 'stopped' = 'new';
  private cur: LogCursor | undefined;
  private retired: LogCursor[] = [];
  private firstOpen = true;
  private watcher: FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  /** True while an old file's last entry may still grow; the new file is not read meanwhile. */
  private holdNew = false;
  private stopping: Promise<void> | undefined;
  private lastErrorText = '';
  private readonly buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);

  constructor(options: LogTailOptions) {
    this.path = resolve(options.path);
    const defaults = { pollMs: DEFAULT_POLL_MS, startAt: 'end' } as const;
    this.opts = { ...defaults, entryFlushMs: DEFAULT_ENTRY_FLUSH_MS, ...options };
  }

  /** Creates the file if needed, starts watching and reads what is there. Throws if called twice. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('LogTail.start() called twice');
    this.state = 'started';
    const dir = dirname(this.path);
    await mkdir(dir, { recursive: true });
    await (await open(this.path, 'a')).close(); // flag 'a' creates without truncating
    if (this.state !== 'started') return;
    // Watch the folder, not the file: a file watch is lost when the file is renamed or deleted.
    const watcher = watch(dir, {
      depth: 0,
      ignoreInitial: true,
      persistent: false, // like the poll timer, the tail alone never keeps a process alive
      atomic: false,
      ignored: (p: string) => {
        const abs = resolve(p);
        return abs !== dir && abs !== this.path;
      },
    });
    this.watcher = watcher;
    watcher.on('all', () => void this.kick());
    watcher.on('error', (err) => this.report(err));
    await within(new Promise<void>((r) => watcher.once('ready', () => r())), WATCHER_READY_TIMEOUT_MS);
    if (this.state !== 'started') return;
    this.pollTimer = setInterval(() => void this.kick(), this.opts.pollMs);
    this.pollTimer.unref();
    await this.kick();
  }

  /** Stops watching and closes every file; delivers entries already complete. Idempotent, bounded. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  /** Reads now; resolves when everything appended so far has been processed. */
  poll(): Promise<void> {
    return this.kick();
  }

  private async doStop(): Promise<void> {
    if (this.state === 'new') {
      this.state = 'stopped';
      return;
    }
    this.state = 'stopping';
    clearInterval(this.pollTimer);
    clearTimeout(this.flushTimer);
    const watcher = this.watcher;
    this.watcher = undefined;
    await within(Promise.allSettled([watcher?.close(), this.running]), STOP_DEADLINE_MS);
    const cursors = [...this.retired, ...(this.cur ? [this.cur] : [])];
    this.cur = undefined;
    this.retired = [];
    for (const c of cursors) c.entries.flush();
    await within(Promise.allSettled(cursors.map((c) => c.close())), STOP_DEADLINE_MS);
    this.state = 'stopped';
  }

  /** Runs one read pass at a time; a wake-up during a pass makes it run once more. */
  private kick(): Promise<void> {
    if (this.state !== 'started') return this.running ?? Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          try {
            await this.pump();
            this.lastErrorText = ''; // a failure that comes back after a good pass is news again
          } catch (err) {
            this.report(err);
          }
        } while (this.again && this.state === 'started');
        this.flushStaleEntries();
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async pump(): Promise<void> {
    const st = await statOrUndefined(this.path);
    if (this.cur && !this.cur.isSameFileAs(st)) {
      this.cur.retiredAt = Date.now();
      this.retired.push(this.cur);
      this.cur = undefined;
    }
    if (!this.cur && st?.isFile()) {
      // Only the file there at start() begins at its end (an open that fails does not count).
      const atEnd = this.firstOpen && this.opts.startAt === 'end';
      this.cur = await LogCursor.open(this.path, atEnd, (e) => this.deliver(e), READ_CHUNK_BYTES);
      this.firstOpen = false;
    }
    const cur = this.cur;
    // Take the new file's size BEFORE draining retired files. A writer appends to the new file
    // only after its previous append (to the old one) returned, so every line a writer put in
    // the old file before a line within this size is already there and gets delivered first.
    const limit = cur ? await cur.sizeAfterTruncationCheck() : 0;
    let oldEntryOpen = false;
    for (const r of [...this.retired]) {
      await r.readUpTo(Infinity, this.buf);
      if (Date.now() - r.retiredAt! >= RETIRED_FILE_GRACE_MS) {
        this.retired = this.retired.filter((x) => x !== r);
        await r.finish();
      } else if (r.lines.hasPartial || (r.entries.pending && !this.isStale(r))) oldEntryOpen = true;
      else r.entries.flush(); // before any entry of the new file
    }
    // An entry still being written to an old file precedes whatever its writer puts in the new
    // one, so the new file waits (at most the grace time) until that entry is complete.
    this.holdNew = oldEntryOpen;
    if (cur && !oldEntryOpen) await cur.readUpTo(limit, this.buf);
  }

  private isStale = (c: LogCursor): boolean => Date.now() - c.lastDataAt >= this.opts.entryFlushMs;

  /** Delivers entries that waited `entryFlushMs` without a continuation line; re-arms if needed. */
  private flushStaleEntries(): void {
    if (this.state !== 'started') return;
    let waiting = this.holdNew;
    const cur = this.cur;
    if (cur?.entries.pending && !this.holdNew) {
      if (this.isStale(cur)) cur.entries.flush();
      else waiting = true;
    }
    if (waiting && !this.flushTimer) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        void this.kick();
      }, this.opts.entryFlushMs);
      this.flushTimer.unref();
    }
  }

  private deliver(entry: TailEntry): void {
    try {
      this.opts.onEntry(entry);
    } catch (err) {
      this.report(err);
    }
  }

  private report(err: unknown): void {
    const e = err instanceof Error ? err : new Error(String(err));
    // The poll retries a failing read every interval; report a repeated failure once.
    if (e.message === this.lastErrorText) return;
    this.lastErrorText = e.message;
    try {
      this.opts.onError?.(e);
    } catch {
      // An error handler that throws must not stop the tail.
    }
  }
}
