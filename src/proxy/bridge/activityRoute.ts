/**
 * `GET /activity`: one page of the activity log (activity/activityRing.ts), newest first,
 * filtered by `server`, `client`, `outcome` and `text`, paged by `before` and `limit`; and
 * `GET /activity/events`: the same filters as a Server-Sent Events stream, one `call` event per
 * new record. A reader that falls more than 1 MiB behind is cut off (it reconnects and pages).
 * Loaded on the first such request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ACTIVITY_OUTCOMES,
  type ActivityOutcome,
  type ActivityPage,
  type ActivityQuery,
  type ActivityRecord,
} from '../../shared/activity.js';
import { matches } from '../../shared/activityMatch.js';
import { sendError, sendJson } from './body.js';
import { EventStream } from './eventStream.js';

const MAX_BEHIND_BYTES = 1024 * 1024;

/** What the route reads: the hub's activity log. */
export interface ActivitySource {
  query(q: ActivityQuery): ActivityPage;
  subscribe(listener: (r: ActivityRecord) => void): () => void;
}

export interface ActivityRouteOptions {
  source?: ActivitySource;
  keepAliveMs: number;
  /** Told of each open stream, so the server closes it when it stops. */
  track: (s: EventStream) => void;
}

/** Reads `/activity`'s filters from a query string; a wrong one is the error text. */
export function parseActivityQuery(params: URLSearchParams): ActivityQuery | string {
  const q: ActivityQuery = {};
  for (const key of ['server', 'client', 'text'] as const) {
    const v = params.get(key);
    if (v !== null && v !== '') q[key] = v.slice(0, 200);
  }
  const outcome = params.get('outcome');
  if (outcome !== null && outcome !== '') {
    if (!ACTIVITY_OUTCOMES.includes(outcome as ActivityOutcome))
      return `outcome must be one of ${ACTIVITY_OUTCOMES.join(', ')}`;
    q.outcome = outcome as ActivityOutcome;
  }
  for (const key of ['before', 'limit'] as const) {
    const v = params.get(key);
    if (v === null || v === '') continue;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) return `${key} must be a positive integer`;
    q[key] = n;
  }
  return q;
}

export function serveActivity(
  req: IncomingMessage,
  res: ServerResponse,
  stream: boolean,
  url: URL,
  opts: ActivityRouteOptions,
): void {
  if (req.method !== 'GET') return sendError(res, 405, 'method not allowed', {}, { Allow: 'GET' });
  if (!opts.source) return sendError(res, 404, 'the activity log is off ("activity": "off")');
  const q = parseActivityQuery(url.searchParams);
  if (typeof q === 'string') return sendError(res, 400, q);
  if (!stream) return sendJson(res, 200, opts.source.query(q));
  const events = new EventStream(res, { keepAliveMs: opts.keepAliveMs });
  events.open();
  opts.track(events);
  const text = q.text?.toLowerCase();
  const unsubscribe = opts.source.subscribe((r) => {
    if (!matches(r, q, text)) return;
    if (res.writableLength > MAX_BEHIND_BYTES) return events.close();
    events.sendJson('call', r);
  });
  events.onClose(unsubscribe);
}
