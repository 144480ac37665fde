/**
 * One server's log for the panel's log view: the lines of the bridge's log file tagged with
 * the server (its stderr, and what the runtime said about it), then the bounded ring of its
 * most recent stderr lines (what `/status` carries) for lines the file does not have.
 * Bounded: at most {@link FILE_TAIL_BYTES} of the file are read and `limit` lines returned.
 * Lines are masked by the caller's mask (the config's secrets), as every log line is.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { LogLevelName, LogLine, ServerLog } from '../../shared/configContract.js';

/** How much of the end of the log file is searched. */
export const FILE_TAIL_BYTES = 512 * 1024;
export const DEFAULT_LOG_LINES = 500;
export const MAX_LOG_LINES = 5000;

const HEADER = /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\] \[([a-z]+)\] \[([^\]]*)\] ?/;

/** A level guessed from a server's own stderr line (`ERROR ...`, `[warn]`, `level=debug`). */
export function guessLevel(line: string): LogLevelName {
  if (/\b(error|err|fatal|panic|exception)\b/i.test(line)) return 'error';
  if (/\bwarn(ing)?\b/i.test(line)) return 'warn';
  if (/\b(debug|trace)\b/i.test(line)) return 'debug';
  return 'info';
}

/** The last `maxBytes` of a file as text (from the first whole line); undefined without a file. */
function readTail(path: string, maxBytes: number): { text: string; cut: boolean } | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const from = Math.max(0, size - maxBytes);
    const buf = Buffer.alloc(size - from);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, from + got);
      if (n === 0) break;
      got += n;
    }
    let text = buf.subarray(0, got).toString('utf8');
    if (from > 0) text = text.slice(text.indexOf('\n') + 1);
    return { text, cut: from > 0 };
  } finally {
    closeSync(fd);
  }
}

/** Whether a log tag belongs to server `id` (`id`, or `id` followed by a separator). */
function tagOf(tag: string, id: string): boolean {
  return tag === id || (tag.startsWith(id) && /^[:/ ]/.test(tag.slice(id.length)));
}

/** Builds the log of server `id`. */
export function serverLog(
  id: string,
  ring: readonly string[],
  logFile: string | undefined,
  limit = DEFAULT_LOG_LINES,
  mask: (s: string) => string = (s) => s,
): ServerLog {
  const n = Math.min(Math.max(1, Math.floor(limit) || DEFAULT_LOG_LINES), MAX_LOG_LINES);
  const lines: LogLine[] = [];
  let truncated = false;
  const fromFile = new Set<string>();
  const tail = logFile ? readTail(logFile, FILE_TAIL_BYTES) : undefined;
  if (tail) {
    let current: LogLine | undefined;
    for (const raw of tail.text.split('\n')) {
      const m = HEADER.exec(raw);
      if (m) {
        current = tagOf(m[2], id)
          ? { level: (m[1] as LogLevelName) ?? 'info', text: mask(raw.slice(m[0].length)), source: 'file' }
          : undefined;
        if (current) {
          // The runtime logs a server's stderr lines at info: the server's own words say more.
          if (current.level === 'info') current.level = guessLevel(current.text);
          lines.push(current);
          fromFile.add(current.text);
        }
      } else if (current && raw.startsWith('    ')) {
        current.text += `\n${mask(raw.slice(4))}`;
      }
    }
    truncated = tail.cut;
  }
  for (const l of ring) {
    const text = mask(l);
    if (!fromFile.has(text)) lines.push({ level: guessLevel(text), text, source: 'ring' });
  }
  if (lines.length > n) truncated = true;
  return { ok: true, lines: lines.slice(-n), truncated };
}
