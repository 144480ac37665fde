// src/proxy/common/: what every folder of the proxy uses (logging, deadlines, env names, protocol versions).
/**
 * The proxy's one logger. Lines look like `[YYYY-MM-DD HH:mm:ss.SSS] [level] [tag] message`
 * (local time), control characters escaped. They always go to stderr and, when
 * `MCP_PROXY_LOG_FILE` is set, are also appended to that file with one write per entry, so
 * several processes can share it.
 * Memory stays bounded whoever reads: stderr lines wait in a bounded queue (dropped and
 * counted beyond it), and the file is written synchronously.
 * Nothing here ever writes to stdout: stdout belongs to the protocol.
 */
import { closeSync, mkdirSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { SecretMask } from '../config/secretMask.js';
import { openLogFile, refuseLogFile } from './logFileTarget.js';
import { printableLines } from './printable.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Environment variable naming the shared log file. */
export const LOG_FILE_ENV = 'MCP_PROXY_LOG_FILE';
/** Environment variable setting the minimum level (default `info`). */
export const LOG_LEVEL_ENV = 'MCP_PROXY_LOG_LEVEL';

export interface LogSink {
  write(line: string): void;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; defaults to stderr plus the `MCP_PROXY_LOG_FILE` file when set. */
  sinks?: LogSink[];
  /** Secrets masked in every line (a fresh, empty mask by default). */
  secrets?: SecretMask;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Formats a local timestamp as `YYYY-MM-DD HH:mm:ss.SSS`. */
export function formatTimestamp(d: Date): string {
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
  );
}

/**
 * Formats one entry; continuation lines of a multi-line message are indented, and every other
 * control character but the tab, DEL and every bidirectional control is escaped (printable.ts):
 * a line holds what servers and clients send (names, stderr lines), and whoever reads it in a
 * terminal must get text, never an escape sequence.
 */
export function formatEntry(level: LogLevel, tag: string, message: string, now = new Date()): string {
  const body = printableLines(message.replace(/\r?\n$/, ''), '\n    ');
  return `[${formatTimestamp(now)}] [${level}] [${printableLines(tag, ' ')}] ${body}\n`;
}

export function parseLevel(value: string | undefined, fallback: LogLevel = 'info'): LogLevel {
  const v = (value ?? '').trim().toLowerCase();
  return (LOG_LEVELS as readonly string[]).includes(v) ? (v as LogLevel) : fallback;
}

/** Bytes of log lines that may wait in memory for a slow (or absent) stderr reader. */
export const STDERR_QUEUE_MAX_BYTES = 1024 * 1024;

/**
 * A sink on a stream that may be a pipe nobody reads (writes to a pipe are queued in memory):
 * while more than `maxQueuedBytes` wait, lines are dropped and counted, and once the reader
 * catches up one `N lines dropped` line says so.
 */
export function streamSink(
  stream: () => NodeJS.WritableStream & { writableLength?: number },
  maxQueuedBytes = STDERR_QUEUE_MAX_BYTES,
): LogSink {
  let dropped = 0;
  const put = (line: string) => {
    try {
      stream().write(line);
    } catch {
      // A closed stderr must never take the proxy down.
    }
  };
  const notice = () => {
    if (dropped === 0) return;
    const n = dropped;
    dropped = 0;
    put(formatEntry('warn', 'logger', `${n} lines dropped: stderr was not read fast enough`));
  };
  return {
    write(line) {
      const s = stream();
      if ((s.writableLength ?? 0) > maxQueuedBytes) {
        if (dropped++ === 0) s.once('drain', notice);
        return;
      }
      if (dropped > 0) {
        s.removeListener('drain', notice);
        notice();
      }
      put(line);
    },
  };
}

export const stderrSink: LogSink = streamSink(() => process.stderr);

/** Writes all of `buf`; gives up on a write that takes nothing (never spins). */
function writeAll(fd: number, buf: Buffer): void {
  for (let off = 0; off < buf.length;) {
    const n = writeSync(fd, buf, off);
    if (n <= 0) throw new Error(`short write (${off} of ${buf.length} bytes)`);
    off += n;
  }
}

/**
 * Appends each entry with one synchronous write to a freshly opened fd (so several processes
 * can share the file and a rotated file is picked up). Only a regular file or a missing path
 * is used (see logFileTarget.ts); anything else is refused with one warning. Write failures
 * are swallowed (and reported once).
 */
export function fileSink(path: string): LogSink {
  let checked = false;
  let refused = false;
  let warned = false;
  const warn = (why: string) =>
    stderrSink.write(formatEntry('warn', 'logger', `cannot write log file ${path}: ${why}`));
  const refuse = (why: string) => {
    refused = true;
    warn(`${why}; not logging to it`);
  };
  return {
    write(line) {
      if (refused) return;
      let fd: number | undefined;
      try {
        if (!checked) {
          const why = refuseLogFile(path);
          if (why) return refuse(why);
          mkdirSync(dirname(path), { recursive: true });
          checked = true;
        }
        const opened = openLogFile(path);
        if ('refused' in opened) return refuse(opened.refused);
        fd = opened.fd;
        writeAll(fd, Buffer.from(line, 'utf8'));
      } catch (err) {
        if (!warned) {
          warned = true;
          warn((err as Error).message);
        }
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
    },
  };
}

export function defaultSinks(env: NodeJS.ProcessEnv = process.env): LogSink[] {
  const file = env[LOG_FILE_ENV];
  return file ? [stderrSink, fileSink(file)] : [stderrSink];
}

/** A tagged logger; `child(tag)` shares sinks and level. */
export class Logger {
  private readonly rank: number;
  constructor(
    readonly tag: string,
    private readonly opts: { level: LogLevel; sinks: LogSink[]; secrets?: SecretMask },
  ) {
    this.rank = LEVEL_RANK[opts.level];
    opts.secrets ??= new SecretMask();
  }

  static create(tag = 'proxy', options: LoggerOptions = {}): Logger {
    return new Logger(tag, {
      level: options.level ?? parseLevel(process.env[LOG_LEVEL_ENV]),
      sinks: options.sinks ?? defaultSinks(),
      secrets: options.secrets ?? new SecretMask(),
    });
  }

  /** The mask shared by this logger and its children; the config's secrets are added to it. */
  get secrets(): SecretMask {
    return this.opts.secrets!;
  }

  child(tag: string): Logger {
    return new Logger(tag, this.opts);
  }

  get level(): LogLevel {
    return this.opts.level;
  }

  enabled(level: LogLevel): boolean {
    return LEVEL_RANK[level] >= this.rank;
  }

  log(level: LogLevel, message: string): void {
    if (!this.enabled(level)) return;
    const line = formatEntry(level, this.tag, this.opts.secrets!.mask(message));
    for (const sink of this.opts.sinks) sink.write(line);
  }

  debug(message: string): void {
    this.log('debug', message);
  }
  info(message: string): void {
    this.log('info', message);
  }
  warn(message: string): void {
    this.log('warn', message);
  }
  error(message: string): void {
    this.log('error', message);
  }
}

/** Best-effort text of an unknown thrown value. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
