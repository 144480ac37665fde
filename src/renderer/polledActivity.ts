/**
 * The Activity view's feed in the app: the IPC page call (`mcp:activity:get`), asked again
 * every second while the view follows, handing on the records newer than the last one seen
 * (paged back when more came than one page holds). A newest record older than the last one
 * seen means the bridge started again: the feed says `live` once more, so the view reloads.
 */
import type { ActivityQuery, ActivityRecord } from '../shared/activity.js';
import type { ActivityResult } from '../shared/ipcContract.js';
import type { ActivityFeed, FeedState } from './activityFeed.js';
import type { AppViewAnswer } from '../shared/appView.js';
import type { McpAppView } from './mcpApp/mountMcpApp.js';

const POLL_MS = 1000;
const POLL_PAGE = 200;
/** Pages read back in one poll at most; a burst beyond them is in the view's next page load. */
const MAX_PAGES = 5;

export class PolledActivityFeed implements ActivityFeed {
  /** Set by the source when the app offers views (preloadSource.ts). */
  openView?: (key: string) => Promise<McpAppView>;
  acceptView?: (key: string, hash: string) => Promise<AppViewAnswer>;

  constructor(
    private readonly get: (query: ActivityQuery) => Promise<ActivityResult>,
    private readonly pollMs = POLL_MS,
  ) {}

  page(query: ActivityQuery): Promise<ActivityResult> {
    return this.get(query);
  }

  follow(onRecord: (r: ActivityRecord) => void, onState: (state: FeedState, detail?: string) => void): () => void {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let last: number | undefined;
    let state: FeedState | undefined;
    const say = (s: FeedState, detail?: string) => {
      if (s === state && s !== 'live') return;
      state = s;
      onState(s, detail);
    };

    const poll = async () => {
      const first = await this.get({ limit: POLL_PAGE });
      if (stopped) return;
      if (!first.ok) {
        if (/activity log is off/.test(first.error)) return say('off', first.error);
        say('reconnecting', first.error);
        return;
      }
      const newest = first.records[0]?.seq ?? 0;
      if (last === undefined || newest < last || state !== 'live') {
        last = newest;
        say('live');
        return;
      }
      const fresh: ActivityRecord[] = [];
      let page = first;
      for (let n = 0; n < MAX_PAGES; n++) {
        for (const r of page.records) if (r.seq > last) fresh.push(r);
        const oldest = page.records[page.records.length - 1]?.seq;
        if (oldest === undefined || oldest <= last + 1 || page.next === undefined) break;
        const more = await this.get({ limit: POLL_PAGE, before: page.next });
        if (stopped || !more.ok) break;
        page = more;
      }
      last = newest;
      for (const r of fresh.reverse()) onRecord(r);
    };

    const loop = () => {
      void poll()
        .catch((err: unknown) => say('reconnecting', err instanceof Error ? err.message : String(err)))
        .then(() => {
          if (!stopped && state !== 'off') timer = setTimeout(loop, this.pollMs);
        });
    };
    loop();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }
}
