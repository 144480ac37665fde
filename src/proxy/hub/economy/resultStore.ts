/**
 * One aggregate session's full tool results, kept when a result over its cap was cut
 * (resultCut.ts), read back with `resources/read` on `qiming-result://<key>/<n>` (pages:
 * resultPages.ts). The key is random per session, and the store lives in its session
 * (hub/downstreamSession.ts): another session never reads it, and it is dropped when the
 * session closes. Bounded by count and bytes, the oldest dropped first (the latest always
 * stays); a read of a dropped one says so. A lazily loaded bundle file: a session whose
 * results all fit never reads it.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCode, type RpcErrorObject } from '../../jsonrpc/jsonRpc.js';
import { KEPT_RESULT_SCHEME } from './resultCap.js';
import { cutResult } from './resultCut.js';
import { pageCount, readPage } from './resultPages.js';
import { grouped } from './jsonSize.js';

type Obj = Record<string, unknown>;

/** How many full results a session keeps. */
const MAX_KEPT_RESULTS = 20;
/** How many bytes of full results a session keeps (more than one result of the largest a server may send). */
const MAX_KEPT_BYTES = 64 * 1024 * 1024;
/** What a page leaves of the message cap for the JSON-RPC envelope around it. */
const PAGE_HEADROOM_BYTES = 16 * 1024;

export interface ResultStoreOptions {
  /** The cap on one message (`--max-message-bytes`): a page of a kept result stays under it. */
  maxMessageBytes: number;
  maxResults?: number;
  maxBytes?: number;
}

export class ResultStore {
  private readonly prefix = `${KEPT_RESULT_SCHEME}${randomBytes(6).toString('hex')}/`;
  private readonly kept = new Map<number, { result: Obj; bytes: number }>();
  private next = 1;
  private bytes = 0;
  private readonly pageBytes: number;
  private readonly maxResults: number;
  private readonly maxBytes: number;

  constructor(o: ResultStoreOptions) {
    this.pageBytes = o.maxMessageBytes - PAGE_HEADROOM_BYTES;
    this.maxResults = o.maxResults ?? MAX_KEPT_RESULTS;
    this.maxBytes = o.maxBytes ?? MAX_KEPT_BYTES;
  }

  /** Keeps `result` (of `bytes` bytes) whole and returns it cut to `cap`, its note naming where the whole is. */
  cut(result: Obj, bytes: number, cap: number): Obj {
    const uri = `${this.prefix}${this.next++}`;
    this.kept.set(this.next - 1, { result, bytes });
    this.bytes += bytes;
    for (const [n, k] of this.kept) {
      if (this.kept.size <= this.maxResults && this.bytes <= this.maxBytes) break;
      if (n === this.next - 1) break;
      this.kept.delete(n);
      this.bytes -= k.bytes;
    }
    return cutResult(result, bytes, cap, uri, pageCount(result, uri, this.pageBytes));
  }

  /** Whether `uri` names a result of this store (kept, dropped or never made). */
  owns(uri: string): boolean {
    return uri.startsWith(this.prefix);
  }

  /** The `resources/read` answer for `uri` (one this store owns), or why there is none. */
  read(uri: string): { result: Obj } | { error: RpcErrorObject } {
    const m = /^(\d{1,15})(?:\?page=(\d{1,15}))?$/.exec(uri.slice(this.prefix.length));
    const fail = (message: string) => ({ error: { code: ErrorCode.InvalidParams, message, data: { uri } } });
    if (!m)
      return fail(
        `Invalid params: ${uri} is not a kept result: its URI is ${this.prefix}<n>, with ?page=<n> for a page`,
      );
    const n = Number(m[1]);
    const page = m[2] === undefined ? 1 : Number(m[2]);
    const base = `${this.prefix}${n}`;
    const k = this.kept.get(n);
    if (!k) {
      if (n > 0 && n < this.next)
        return fail(
          `Resource not found: ${base} was dropped: this session keeps its latest ${this.maxResults} cut results ` +
            `(at most ${grouped(this.maxBytes)} bytes), and this one was older; call the tool again for its result`,
        );
      return fail(`Resource not found: no result ${n} was kept in this session`);
    }
    const result = page > 0 ? readPage(k.result, base, page, this.pageBytes) : undefined;
    if (!result) {
      const pages = pageCount(k.result, base, this.pageBytes);
      return fail(
        `Resource not found: ${base} has ${grouped(pages)} page${pages === 1 ? '' : 's'}, not a page ${page}`,
      );
    }
    return { result };
  }
}
