/**
 * Notices a server that answers nothing (frozen, deadlocked) while its process lives and
 * its state stays `ready`: after NOT_ANSWERING_AFTER timeouts in a row it has a note for
 * lastError; any real answer clears it. Errors made up on this side (closed, cancelled)
 * neither count nor clear.
 */
import { ErrorCode, type RpcResponse } from '../jsonrpc/jsonRpc.js';

/** Timeouts in a row after which a ready server is reported as not answering. */
export const NOT_ANSWERING_AFTER = 3;

const TIMEOUT_RE = /timed out after (\d+) ms/;

export class AnswerWatch {
  private inARow = 0;
  /** The current note, while the server is not answering. */
  note?: string;

  reset(): void {
    this.inARow = 0;
    this.note = undefined;
  }

  /** Records one response to `method`; 'set' or 'cleared' when the note changed. */
  record(method: string, res: RpcResponse): 'set' | 'cleared' | undefined {
    const err = 'error' in res ? res.error : undefined;
    const timedOut = err?.code === ErrorCode.RequestTimeout ? TIMEOUT_RE.exec(err.message) : null;
    if (timedOut) {
      this.inARow++;
      if (this.inARow < NOT_ANSWERING_AFTER) return undefined;
      this.note = `not answering: ${this.inARow} requests in a row timed out (last: ${method} after ${timedOut[1]} ms)`;
      return 'set';
    }
    if (err?.code === ErrorCode.ConnectionClosed) return undefined;
    this.inARow = 0;
    if (this.note === undefined) return undefined;
    this.note = undefined;
    return 'cleared';
  }
}
