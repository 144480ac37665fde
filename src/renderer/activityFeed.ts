/**
 * Where the Activity view gets the calls: a page of the activity log with filters and the
 * new records as they are made. Over HTTP (this file): `GET /activity` and the
 * `GET /activity/events` stream, read with fetch() so the token stays in a header, reconnecting
 * with backoff. In the app: polledActivity.ts over the IPC page call. Every method resolves;
 * failures come back as `{ ok: false, error }` or as the link state.
 */
import { httpAcceptView, httpAppView } from './mcpApp/httpAppViews.js';
import type { AppViewAnswer } from '../shared/appView.js';
import type { McpAppView } from './mcpApp/mountMcpApp.js';
import type { ActivityQuery, ActivityRecord } from '../shared/activity.js';
import type { ActivityResult } from '../shared/ipcContract.js';
import { SseParser } from '../shared/sseParser.js';
import { Backoff } from '../shared/backoff.js';

/**
 * The feed's link: `live` each time it (re)starts following (what came before may be missed:
 * the reader loads the page again), `reconnecting` while it retries, `off` when it cannot
 * follow at all (the log is off, the token refused), with the reason.
 */
export type FeedState = 'live' | 'reconnecting' | 'off';

export interface ActivityFeed {
  /** One page, newest first (`/activity`'s filters and paging). */
  page(query: ActivityQuery): Promise<ActivityResult>;
  /** Every new record, oldest first, until the returned function is called. */
  follow(onRecord: (r: ActivityRecord) => void, onState: (state: FeedState, detail?: string) => void): () => void;
  /** The view of a call with an MCP Apps view (`ActivityRecord.app.view`); absent: views are not shown. */
  openView?(key: string): Promise<McpAppView>;
  /** Accepts a view's drift (the `hash` of `openView`'s ViewDriftError); never rejects. */
  acceptView?(key: string, hash: string): Promise<AppViewAnswer>;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** `/activity` as query parameters (only the filters that are set). */
export function activityQueryString(q: ActivityQuery): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** A refusal that retrying cannot fix. */
class Refused extends Error {}

/** {@link ActivityFeed} over the bridge's routes, same origin, bearer token. */
export class HttpActivityFeed implements ActivityFeed {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string | undefined,
    private readonly idleTimeoutMs = 60_000,
  ) {}

  openView(key: string): Promise<McpAppView> {
    return httpAppView(this.baseUrl, this.token, key);
  }

  acceptView(key: string, hash: string): Promise<AppViewAnswer> {
    return httpAcceptView(this.baseUrl, this.token, key, hash);
  }

  private url(path: string): string {
    return this.baseUrl.replace(/\/+$/, '') + path;
  }

  private headers(): Record<string, string> {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }

  async page(query: ActivityQuery): Promise<ActivityResult> {
    let res: Response;
    try {
      res = await fetch(this.url(`/activity${activityQueryString(query)}`), {
        headers: this.headers(),
        cache: 'no-store',
      });
    } catch (err) {
      return { ok: false, error: `The bridge could not be reached (${message(err)}).` };
    }
    const body = (await res.json().catch(() => undefined)) as
      { records?: ActivityRecord[]; next?: number; held?: number; dropped?: number; error?: string } | undefined;
    if (!res.ok || !body || !Array.isArray(body.records))
      return { ok: false, error: body?.error ?? `The bridge answered HTTP ${res.status}.` };
    return {
      ok: true,
      records: body.records,
      ...(body.next !== undefined ? { next: body.next } : {}),
      held: body.held ?? body.records.length,
      dropped: body.dropped ?? 0,
    };
  }

  follow(onRecord: (r: ActivityRecord) => void, onState: (state: FeedState, detail?: string) => void): () => void {
    let stopped = false;
    let ctl: AbortController | undefined;
    let wake: (() => void) | undefined;
    const backoff = new Backoff({ initialDelayMs: 500, maxDelayMs: 5000 });

    const once = async () => {
      const abort = (ctl = new AbortController());
      const res = await fetch(this.url('/activity/events'), {
        headers: { ...this.headers(), Accept: 'text/event-stream' },
        cache: 'no-store',
        signal: abort.signal,
      });
      if (res.status === 401 || res.status === 403)
        throw new Refused('The bridge refused the access token. Reopen this panel from the app.');
      if (res.status === 404) {
        const body = (await res.json().catch(() => undefined)) as { error?: string } | undefined;
        throw new Refused(body?.error ?? 'This bridge has no activity log.');
      }
      if (!res.ok || !res.body) throw new Error(`GET /activity/events answered HTTP ${res.status}`);
      backoff.reset();
      onState('live');
      const parser = new SseParser((e) => {
        if (e.event !== 'call') return;
        try {
          onRecord(JSON.parse(e.data) as ActivityRecord);
        } catch {
          // a malformed event is skipped; the page has the record
        }
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let idle: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(() => abort.abort(), this.idleTimeoutMs);
      };
      try {
        arm();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          arm();
          parser.push(value);
        }
      } finally {
        clearTimeout(idle);
        abort.abort();
      }
    };

    const run = async () => {
      while (!stopped) {
        let reason = 'the activity stream ended';
        try {
          await once();
        } catch (err) {
          if (stopped) return;
          if (err instanceof Refused) return onState('off', err.message);
          reason = message(err);
        }
        if (stopped) return;
        const delay = backoff.fail()!; // no maxAttempts: never undefined
        onState('reconnecting', `${reason}; retrying in ${Math.ceil(delay / 1000)} s`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, delay);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        wake = undefined;
      }
    };
    void run();
    return () => {
      stopped = true;
      ctl?.abort();
      wake?.();
    };
  }
}
