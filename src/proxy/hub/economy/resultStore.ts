/**
 * One aggregate session's full tool results, kept when a result over its cap was cut
 * (resultCut.ts), read back with `resources/read` on `qiming-result://<key>/<n>` (pages:
 * resultPages.ts). The key is random per session, and the store lives in its session
 * (hub/downstreamSession.ts): another session never reads it, and it is released when the
 * session closes. Bounded per session by count and bytes, the oldest dropped first, and across
 * the sessions of the process by bytes (KeptLedger): past that bound the session keeping the
 * most bytes drops its oldest, again until the whole is within it. The result just kept always
 * stays; a read of a dropped one says so. A lazily loaded bundle file: a session whose results
 * all fit never reads it.
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
/** How many bytes of full results the sessions of one process keep together: two sessions at their own bound. */
export const MAX_SHARED_KEPT_BYTES = 128 * 1024 * 1024;
/** What a page leaves of the message cap for the JSON-RPC envelope around it. */
const PAGE_HEADROOM_BYTES = 16 * 1024;

export interface ResultStoreOptions {
  /** The cap on one message (`--max-message-bytes`): a page of a kept result stays under it. */
  maxMessageBytes: number;
  maxResults?: number;
  maxBytes?: number;
  /** The stores this one is bounded with (default: every store of the process). */
  ledger?: KeptLedger;
}

/** The result stores of one process and the bytes they keep together. */
export class KeptLedger {
  readonly stores = new Set<ResultStore>();
  bytes = 0;

  constructor(readonly maxBytes: number = MAX_SHARED_KEPT_BYTES) {}

  /**
   * Drops results until the stores keep at most `maxBytes` together: each time the oldest of
   * the store keeping the most bytes. `latest` (the store that just kept a result) keeps that one.
   */
  trim(latest: ResultStore): void {
    while (this.bytes > this.maxBytes) {
      let most: ResultStore | undefined;
      for (const s of this.stores) if (s.droppable(s === latest) && (!most || s.keptBytes > most.keptBytes)) most = s;
      if (!most) return;
      most.dropOldest();
    }
  }
}

/** The ledger of every store of this process. */
const PROCESS_LEDGER = new KeptLedger();

export class ResultStore {
  private readonly prefix = `${KEPT_RESULT_SCHEME}${randomBytes(6).toString('hex')}/`;
  /** Kept results by number, oldest first. */
  private readonly kept = new Map<number, { result: Obj; bytes: number }>();
  private next = 1;
  private bytes = 0;
  private released = false;
  private readonly pageBytes: number;
  private readonly maxResults: number;
  private readonly maxBytes: number;
  private readonly ledger: KeptLedger;

  constructor(o: ResultStoreOptions) {
    this.pageBytes = o.maxMessageBytes - PAGE_HEADROOM_BYTES;
    this.maxResults = o.maxResults ?? MAX_KEPT_RESULTS;
    this.maxBytes = o.maxBytes ?? MAX_KEPT_BYTES;
    this.ledger = o.ledger ?? PROCESS_LEDGER;
    this.ledger.stores.add(this);
  }

  /** The bytes of the results this store keeps. */
  get keptBytes(): number {
    return this.bytes;
  }

  /**
   * Keeps `result` (of `bytes` bytes) whole and returns it cut to `cap`, its note naming where
   * the whole is. A released store (its session closed) keeps nothing.
   */
  cut(result: Obj, bytes: number, cap: number): Obj {
    const n = this.next++;
    const uri = `${this.prefix}${n}`;
    if (!this.released) {
      this.kept.set(n, { result, bytes });
      this.bytes += bytes;
      this.ledger.bytes += bytes;
      while (this.droppable(true) && (this.kept.size > this.maxResults || this.bytes > this.maxBytes))
        this.dropOldest();
      this.ledger.trim(this);
    }
    return cutResult(result, bytes, cap, uri, pageCount(result, uri, this.pageBytes));
  }

  /** Whether a result may be dropped: any when `keepLatest` is false, else any but the latest. */
  droppable(keepLatest: boolean): boolean {
    return this.kept.size > (keepLatest ? 1 : 0);
  }

  /** Drops the oldest result kept. */
  dropOldest(): void {
    for (const [n, k] of this.kept) {
      this.kept.delete(n);
      this.bytes -= k.bytes;
      this.ledger.bytes -= k.bytes;
      return;
    }
  }

  /** Lets every result go, and keeps none from now on (the session closed). */
  release(): void {
    this.released = true;
    this.ledger.bytes -= this.bytes;
    this.ledger.stores.delete(this);
    this.kept.clear();
    this.bytes = 0;
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
            `(at most ${grouped(this.maxBytes)} bytes, and ${grouped(this.ledger.maxBytes)} bytes across sessions), ` +
            'and this one was older; call the tool again for its result',
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
