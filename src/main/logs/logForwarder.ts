/**
 * Writes tailed proxy entries into electron-log: at the entry's level, under its tag as the
 * scope, and dated with the proxy's own timestamp rather than the moment main read the line.
 *
 * electron-log's level functions (`log.info`, `log.scope(x).warn`) always stamp `new Date()`.
 * Its lower-level `processMessage(message)` spreads the given message over its defaults
 * (`{ date: new Date(), ...message }` in electron-log 5's `core/Logger.js`), so a message that
 * carries `date` keeps it through hooks and every transport's `{y}-{m}-{d} ...` format.
 */
import type { EntryLevel } from './logEntryParser.js';
import type { TailEntry } from './logTail.js';

/** The one message shape handed to electron-log's `processMessage`. */
export interface ElectronLogMessage {
  data: unknown[];
  date: Date;
  level: EntryLevel;
  scope?: string;
}

/** The part of an electron-log logger (main or `electron-log/node`) this module uses. */
export interface ElectronLogLike {
  processMessage(message: ElectronLogMessage): void;
}

export interface ElectronLogSinkOptions {
  /** Scope for entries that carry no tag (stray lines). Default `'proxy'`. */
  defaultScope?: string;
  /** Prefix put before every tag, e.g. `'mcp:'` to keep proxy scopes apart. Default none. */
  scopePrefix?: string;
}

/** Writes one entry to `log`; see {@link createElectronLogSink}. */
export function forwardToElectronLog(
  entry: TailEntry,
  log: ElectronLogLike,
  options: ElectronLogSinkOptions = {},
): void {
  const scope = `${options.scopePrefix ?? ''}${entry.tag ?? options.defaultScope ?? 'proxy'}`;
  log.processMessage({
    data: [entry.message],
    // An entry without a parsable timestamp (a stray line) is dated when main read it.
    date: entry.ts ?? new Date(),
    level: entry.level,
    scope,
  });
}

/** An `onEntry` callback for {@link LogTail} that forwards each entry to `log`. */
export function createElectronLogSink(
  log: ElectronLogLike,
  options: ElectronLogSinkOptions = {},
): (entry: TailEntry) => void {
  return (entry) => forwardToElectronLog(entry, log, options);
}
