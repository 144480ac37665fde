/**
 * What a stdio server writes on stdout that is not a JSON-RPC message: lines that do not
 * parse, and lines over the size cap (skipped by the decoder). Each costs at most a
 * rate-limited, sanitised warning. What an oversize line answers (the request it fails)
 * is jsonrpc/awaitedReplies.ts's.
 */
import type { Logger } from '../common/logger.js';
import { LineBudget } from '../common/lineBudget.js';
import { printable } from '../common/printable.js';

/** Warnings about bad stdout lines: a burst, then this many a second. */
const WARN_BURST = 20;
const WARN_PER_SECOND = 5;
/** How much of a bad line a warning shows. */
const SHOWN_CHARS = 200;

/** A message on stdout bigger than the size cap; it was skipped, not parsed. */
export class OversizeMessageError extends Error {
  constructor(
    readonly bytes: number,
    readonly idHint: string | number | undefined,
    server: string,
    limit: number,
  ) {
    super(
      `server '${server}' wrote a ${bytes}-byte message (id ${idHint ?? 'unknown'}), over the ${limit}-byte limit; skipped`,
    );
    this.name = 'OversizeMessageError';
  }
}

export class StdoutJunk {
  private readonly budget: LineBudget;

  constructor(
    private readonly server: string,
    private readonly log: Logger,
    private readonly maxBytes: number,
  ) {
    this.budget = new LineBudget(WARN_PER_SECOND, WARN_BURST, (n) =>
      log.warn(`suppressed ${n} more non-JSON-RPC lines on stdout`),
    );
  }

  /** A line that is not JSON-RPC; returns the error to report, unless over the budget. */
  notJsonRpc(body: string): Error | undefined {
    if (!this.budget.allow()) return undefined;
    const shown = printable(body, SHOWN_CHARS);
    this.log.warn(`non-JSON-RPC line on stdout ignored: ${shown}`);
    return new Error(`server '${this.server}' wrote a line that is not JSON-RPC: ${shown}`);
  }

  /** A skipped oversize line; returns the error to report, unless over the budget. */
  oversize(bytes: number, idHint: string | number | undefined): OversizeMessageError | undefined {
    if (!this.budget.allow()) return undefined;
    const error = new OversizeMessageError(bytes, idHint, this.server, this.maxBytes);
    this.log.warn(error.message);
    return error;
  }

  /** Reports what the budget held back (at the end of the stream). */
  flush(): void {
    this.budget.flush();
  }
}
