/**
 * The activity log's file (`"activity": "file"`): one JSON line per record appended to
 * `activity.jsonl` in the data folder, rotated to `activity.1.jsonl` past `maxBytes` (one old
 * file kept, so at most twice that on disk). Lines are queued and written in order by one
 * write stream; a write error stops the file (said once) and never the calls. A line holds no
 * raw control or bidirectional character (printable.ts): a terminal that shows it runs none.
 * Loaded on use.
 */
import { createWriteStream, mkdirSync, renameSync, statSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { ActivityRecord } from '../../shared/activity.js';
import type { Logger } from '../common/logger.js';
import { printableJson } from '../common/printable.js';

export const ACTIVITY_FILE = 'activity.jsonl';
export const DEFAULT_ACTIVITY_FILE_BYTES = 8 * 1024 * 1024;

export class ActivityFile {
  readonly path: string;
  private out?: WriteStream;
  private size = 0;
  private failed = false;

  constructor(
    readonly dir: string,
    private readonly logger: Logger,
    readonly maxBytes = DEFAULT_ACTIVITY_FILE_BYTES,
  ) {
    this.path = join(dir, ACTIVITY_FILE);
  }

  write(r: ActivityRecord): void {
    if (this.failed) return;
    const line = `${printableJson(JSON.stringify(r))}\n`;
    if (!this.out) this.open();
    else if (this.size + line.length > this.maxBytes) this.rotate();
    if (!this.out) return;
    this.size += Buffer.byteLength(line);
    this.out.write(line);
  }

  /** Ends the stream once what was queued is written, within `boundMs`. */
  close(boundMs = 1_000): Promise<void> {
    const out = this.out;
    this.out = undefined;
    if (!out) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        out.destroy();
        resolve();
      }, boundMs);
      timer.unref();
      out.end(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private open(): void {
    try {
      mkdirSync(this.dir, { recursive: true });
      try {
        this.size = statSync(this.path).size;
      } catch {
        this.size = 0;
      }
      const out = createWriteStream(this.path, { flags: 'a', mode: 0o600 });
      out.on('error', (err) => this.fail(err));
      this.out = out;
    } catch (err) {
      this.fail(err as Error);
    }
  }

  private rotate(): void {
    const old = this.out!;
    this.out = undefined;
    old.end();
    try {
      renameSync(this.path, join(this.dir, 'activity.1.jsonl'));
    } catch (err) {
      return this.fail(err as Error);
    }
    this.open();
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.out?.destroy();
    this.out = undefined;
    this.logger.warn(`activity file ${this.path} not written: ${err.message}`);
  }
}
