/**
 * From the bytes of the proxies' log file to entries: {@link LineDecoder} turns appended byte
 * ranges into complete lines, {@link parseLogLine} reads the proxy logger's header
 * `[YYYY-MM-DD HH:mm:ss.SSS] [level] [tag] message`, and {@link EntryAssembler} folds
 * continuation lines into the entry they belong to.
 */
import { StringDecoder } from 'node:string_decoder';

export type EntryLevel = 'debug' | 'info' | 'warn' | 'error';

/** One header line of the proxy logger, parsed. */
export interface ParsedLogLine {
  /** Local time from the header; undefined when the digits do not form a valid date. */
  ts: Date | undefined;
  /** The header's timestamp exactly as written. */
  tsText?: string;
  level: EntryLevel;
  tag?: string;
  message: string;
}

/** One log entry: a header line plus its continuation lines, or a stray line on its own. */
export interface LogEntry {
  ts?: Date;
  tsText?: string;
  level: EntryLevel;
  tag?: string;
  /** The message with continuation lines joined by `\n` and their 4-space indent removed. */
  message: string;
  /** The entry's lines exactly as in the file (minus `\r`), joined by `\n`. */
  raw: string;
}

/** Longest line kept while waiting for its newline; longer text is cut so memory stays bounded. */
export const MAX_LINE_CHARS = 1024 * 1024;
/** Most lines folded into one entry; a runaway stream of stray lines is cut into several entries. */
export const MAX_ENTRY_LINES = 1000;

const HEADER =
  /^\[((\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}))\.(\d{3})\] \[([A-Za-z]+)\](?: \[(.*?)\])?(?: (.*))?$/;

const LEVEL_ALIASES: Record<string, EntryLevel> = {
  debug: 'debug',
  trace: 'debug',
  verbose: 'debug',
  silly: 'debug',
  info: 'info',
  log: 'info',
  notice: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  err: 'error',
  fatal: 'error',
};

/**
 * Parses one header line. Returns undefined for a line that does not start with the
 * `[timestamp] [level]` header (a continuation or foreign line). Unknown level words map to
 * `info` rather than rejecting the line, so a newer proxy's levels still show up.
 */
export function parseLogLine(line: string): ParsedLogLine | undefined {
  const m = HEADER.exec(line);
  if (!m) return undefined;
  const [, secondText, , , , , , , ms, levelWord, tag, message] = m;
  const base = secondStart(m);
  const out: ParsedLogLine = {
    ts: base === undefined ? undefined : new Date(base + Number(ms)),
    tsText: `${secondText}.${ms}`,
    level: LEVEL_ALIASES[levelWord!.toLowerCase()] ?? 'info',
    message: message ?? '',
  };
  if (tag !== undefined) out.tag = tag;
  return out;
}

// Local-time conversion is the costly part of parsing, and consecutive entries mostly share
// their second, so the epoch of the last second seen is kept.
let cachedSecondText = '';
let cachedSecondStart: number | undefined;

/** Epoch ms of the header's whole second in local time (the proxy writes local time). */
function secondStart(m: RegExpExecArray): number | undefined {
  if (m[1] === cachedSecondText) return cachedSecondStart;
  const [y, mo, d, h, mi, s] = m.slice(2, 8).map(Number) as [number, number, number, number, number, number];
  const t = new Date(y, mo - 1, d, h, mi, s);
  // Date rolls over out-of-range parts (Feb 30 -> Mar 2); such a header keeps its text, no Date.
  const valid =
    !Number.isNaN(t.getTime()) && t.getMonth() === mo - 1 && t.getDate() === d && h < 24 && mi < 60 && s < 60;
  cachedSecondText = m[1]!;
  cachedSecondStart = valid ? t.getTime() : undefined;
  return cachedSecondStart;
}

/**
 * Splits appended bytes into complete lines. One per file: the StringDecoder keeps a UTF-8
 * sequence split across two reads, and the partial last line waits for its newline.
 */
export class LineDecoder {
  private decoder = new StringDecoder('utf8');
  private partial = '';

  /** True while text without a terminating newline is held back. */
  get hasPartial(): boolean {
    return this.partial.length > 0;
  }

  /** Feeds bytes; returns the lines they completed, without `\n` or a trailing `\r`. */
  push(chunk: Uint8Array): string[] {
    const text = this.decoder.write(chunk as Buffer);
    // Scan only the new text, so a long line arriving in many chunks is not re-scanned.
    if (text.indexOf('\n') === -1) {
      this.partial += text;
      if (this.partial.length < MAX_LINE_CHARS) return [];
      const cut = this.partial;
      this.partial = '';
      return [stripCr(cut)];
    }
    const lines = text.split('\n');
    lines[0] = this.partial + lines[0];
    this.partial = lines.pop()!;
    return lines.map(stripCr);
  }

  /** Ends the stream: returns any held text (as the last line) and resets. */
  end(): string | undefined {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    this.decoder = new StringDecoder('utf8');
    return rest.length > 0 ? stripCr(rest) : undefined;
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/**
 * Folds lines into entries. A header line starts an entry; any other line (the logger's
 * 4-space continuation, or a foreign line) joins the entry before it. A non-header line with
 * no entry before it passes through on its own at `info`; an empty one is dropped.
 * The last entry stays pending until the next header or {@link flush}, because its
 * continuation lines may still be on their way.
 */
export class EntryAssembler {
  private head: ParsedLogLine | undefined;
  private rawLines: string[] = [];
  private messageLines: string[] = [];

  constructor(
    private readonly emit: (entry: LogEntry) => void,
    private readonly maxLines: number = MAX_ENTRY_LINES,
  ) {}

  /** True when an entry is waiting for possible continuation lines. */
  get pending(): boolean {
    return this.head !== undefined;
  }

  push(line: string): void {
    const parsed = parseLogLine(line);
    if (parsed) {
      this.flush();
      this.head = parsed;
      this.rawLines = [line];
      this.messageLines = [parsed.message];
      return;
    }
    if (this.head) {
      this.rawLines.push(line);
      this.messageLines.push(line.startsWith('    ') ? line.slice(4) : line);
      if (this.rawLines.length >= this.maxLines) this.flush();
      return;
    }
    if (line.length > 0) this.emit({ level: 'info', message: line, raw: line });
  }

  /** Emits the pending entry, if any. */
  flush(): void {
    const head = this.head;
    if (!head) return;
    this.head = undefined;
    const entry: LogEntry = {
      level: head.level,
      message: this.messageLines.join('\n'),
      raw: this.rawLines.join('\n'),
    };
    if (head.ts) entry.ts = head.ts;
    if (head.tsText !== undefined) entry.tsText = head.tsText;
    if (head.tag !== undefined) entry.tag = head.tag;
    this.rawLines = [];
    this.messageLines = [];
    this.emit(entry);
  }
}
