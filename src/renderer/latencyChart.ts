/**
 * A server's latency over the last minutes as a small inline SVG: its calls in one-minute
 * buckets, the p50 and p95 duration of each as two lines, its failed share as a bar under
 * them, and the window's error rate as text. Computed from the calls the Activity view
 * holds; no chart library. Every value is also text (a `<title>` per minute, the summary).
 */
import type { ActivityRecord } from '../shared/activity.js';
import { el, setText } from './dom.js';
import { durationText } from './activityText.js';

export const CHART_MINUTES = 15;
const MINUTE_MS = 60_000;
const SVG_NS = 'http://www.w3.org/2000/svg';
const W = 300;
const H = 96;
const LEFT = 44;
const RIGHT = 6;
const TOP = 8;
const BOTTOM = 18;
const ERROR_BAND = 8;

export interface MinuteBucket {
  /** The minute's start (ms since the epoch). */
  start: number;
  calls: number;
  /** Calls whose outcome was neither `ok` nor `cancelled` (as the health figures count). */
  errors: number;
  p50?: number;
  p95?: number;
}

/** The nearest-rank percentile of ascending `sorted` (not empty), as the bridge's health figures take it. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

const failed = (r: ActivityRecord) => r.outcome !== 'ok' && r.outcome !== 'cancelled';

/** `server`'s calls among `records` in one-minute buckets, oldest first, the last one the current minute. */
export function minuteBuckets(
  records: Iterable<ActivityRecord>,
  server: string,
  nowMs: number,
  minutes = CHART_MINUTES,
): MinuteBucket[] {
  const last = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
  const first = last - (minutes - 1) * MINUTE_MS;
  const durations: number[][] = Array.from({ length: minutes }, () => []);
  const errors = new Array<number>(minutes).fill(0);
  for (const r of records) {
    if (r.server !== server) continue;
    const t = Date.parse(r.at);
    if (!(t >= first) || t >= last + MINUTE_MS) continue;
    const i = Math.floor((t - first) / MINUTE_MS);
    durations[i]!.push(r.durationMs);
    if (failed(r)) errors[i]!++;
  }
  return durations.map((d, i) => {
    const sorted = d.sort((a, b) => a - b);
    const b: MinuteBucket = { start: first + i * MINUTE_MS, calls: sorted.length, errors: errors[i]! };
    if (sorted.length) {
      b.p50 = percentile(sorted, 0.5);
      b.p95 = percentile(sorted, 0.95);
    }
    return b;
  });
}

/** The window's figures: calls, errors, p50 and p95 over every call in it. */
export function windowSummary(
  records: Iterable<ActivityRecord>,
  server: string,
  nowMs: number,
  minutes = CHART_MINUTES,
) {
  const from = (Math.floor(nowMs / MINUTE_MS) - (minutes - 1)) * MINUTE_MS;
  const d: number[] = [];
  let errors = 0;
  for (const r of records) {
    if (r.server !== server || !(Date.parse(r.at) >= from)) continue;
    d.push(r.durationMs);
    if (failed(r)) errors++;
  }
  d.sort((a, b) => a - b);
  return {
    calls: d.length,
    errors,
    ...(d.length ? { p50: percentile(d, 0.5), p95: percentile(d, 0.95) } : {}),
  };
}

/** The summary line, e.g. `4 calls · error rate 25% (1) · p50 4 ms · p95 30 ms`. */
export function summaryText(s: ReturnType<typeof windowSummary>): string {
  if (s.calls === 0) return `No calls in the last ${CHART_MINUTES} minutes`;
  const rate = Math.round((s.errors / s.calls) * 100);
  const parts = [
    `${s.calls} call${s.calls === 1 ? '' : 's'}`,
    `error rate ${rate}%${s.errors ? ` (${s.errors})` : ''}`,
    `p50 ${durationText(s.p50!)}`,
    `p95 ${durationText(s.p95!)}`,
  ];
  return parts.join(' \u00b7 ');
}

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function titled<T extends SVGElement>(node: T, text: string): T {
  const t = svg('title', {});
  t.textContent = text;
  node.append(t);
  return node;
}

/** A round top for the axis: 1, 2 or 5 times a power of ten, at least `v`. */
export function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

const clock = (ms: number) =>
  new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });

export interface LatencyChart {
  readonly root: HTMLElement;
  update(records: readonly ActivityRecord[], nowMs: number): void;
}

/** The chart of `server`, built once and redrawn by `update`. */
export function createLatencyChart(server: string): LatencyChart {
  const root = el('section', 'latency', undefined, { 'aria-label': `Latency of ${server}` });
  root.dataset.server = server;
  const head = el('h3', 'latency-server', server);
  const picture = svg('svg', {
    viewBox: `0 0 ${W} ${H}`,
    width: W,
    height: H,
    role: 'img',
    class: 'latency-svg',
  });
  const legend = el('p', 'latency-legend', undefined, { 'aria-hidden': 'true' });
  legend.append(
    el('span', 'swatch swatch-p50'),
    document.createTextNode('p50 '),
    el('span', 'swatch swatch-p95'),
    document.createTextNode('p95 '),
    el('span', 'swatch swatch-errors'),
    document.createTextNode('failed'),
  );
  const summary = el('p', 'latency-summary');
  root.append(head, picture, legend, summary);

  return {
    root,
    update(records, nowMs) {
      const buckets = minuteBuckets(records, server, nowMs);
      const s = windowSummary(records, server, nowMs);
      const text = summaryText(s);
      setText(summary, text);
      picture.setAttribute(
        'aria-label',
        `p50 and p95 latency of ${server} per minute over the last ${CHART_MINUTES} minutes: ${text}`,
      );
      const top = niceMax(Math.max(0, ...buckets.map((b) => b.p95 ?? 0)));
      const plotW = W - LEFT - RIGHT;
      const plotH = H - TOP - BOTTOM - ERROR_BAND - 2;
      const step = plotW / buckets.length;
      const x = (i: number) => LEFT + (i + 0.5) * step;
      const y = (v: number) => TOP + plotH * (1 - v / top);
      const parts: SVGElement[] = [
        svg('line', { class: 'latency-axis', x1: LEFT, y1: TOP, x2: LEFT, y2: TOP + plotH }),
        svg('line', { class: 'latency-axis', x1: LEFT, y1: TOP + plotH, x2: W - RIGHT, y2: TOP + plotH }),
      ];
      const label = (tx: number, ty: number, t: string, anchor: string) => {
        const n = svg('text', { x: tx, y: ty, 'text-anchor': anchor, class: 'latency-label' });
        n.textContent = t;
        return n;
      };
      parts.push(
        label(LEFT - 4, TOP + 8, durationText(top), 'end'),
        label(LEFT - 4, TOP + plotH, '0', 'end'),
        label(LEFT, H - 3, `\u2212${CHART_MINUTES} min`, 'start'),
        label(W - RIGHT, H - 3, 'now', 'end'),
      );
      for (const key of ['p95', 'p50'] as const) {
        let d = '';
        let pen = 'M';
        buckets.forEach((b, i) => {
          const v = b[key];
          if (v === undefined) {
            pen = 'M';
            return;
          }
          d += `${pen}${x(i).toFixed(1)},${y(v).toFixed(1)} `;
          pen = 'L';
        });
        if (d) parts.push(svg('path', { d: d.trim(), class: `latency-line latency-${key}` }));
      }
      buckets.forEach((b, i) => {
        if (b.calls === 0) return;
        const g = svg('g', { class: 'latency-minute' });
        const what = `${clock(b.start)}: ${b.calls} call${b.calls === 1 ? '' : 's'}, p50 ${durationText(b.p50!)}, p95 ${durationText(b.p95!)}, ${b.errors} failed`;
        titled(g, what);
        g.append(
          svg('rect', { class: 'latency-hit', x: LEFT + i * step, y: TOP, width: step, height: H - TOP - BOTTOM }),
          svg('circle', { class: 'latency-dot latency-p95', cx: x(i), cy: y(b.p95!), r: 2.2 }),
          svg('circle', { class: 'latency-dot latency-p50', cx: x(i), cy: y(b.p50!), r: 2.2 }),
        );
        if (b.errors) {
          const h = Math.max(1.5, (ERROR_BAND * b.errors) / b.calls);
          g.append(
            svg('rect', {
              class: 'latency-errors',
              x: LEFT + i * step + 1,
              y: H - BOTTOM - h,
              width: Math.max(1, step - 2),
              height: h,
            }),
          );
        }
        parts.push(g);
      });
      picture.replaceChildren(...parts);
    },
  };
}
