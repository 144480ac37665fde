/**
 * "Activity": the calls through the runtime in a dialog. A live table (callTable.ts), newest
 * first, its first pages from the activity log and then each new call from the feed
 * (activityFeed.ts); filters by server, agent, outcome and text, applied to the page the log
 * answers (its own filters) and to the live calls alike; the selected call's details
 * (callDetail.ts); and per server a latency chart of the last minutes with its error rate
 * (latencyChart.ts). Bounded: the view holds at most 2,000 calls and shows at most 500.
 */
import type { ActivityOutcome, ActivityQuery, ActivityRecord } from '../shared/activity.js';
import { el, setText } from './dom.js';
import { button, createDialog, field } from './controls.js';
import type { ActivityFeed, FeedState } from './activityFeed.js';
import { ActivityStore } from './activityStore.js';
import { matches } from '../shared/activityMatch.js';
import { OUTCOME_LABELS } from './activityText.js';
import { createCallTable, MAX_ROWS } from './callTable.js';
import { createCallDetail } from './callDetail.js';
import { CHART_MINUTES, createLatencyChart, type LatencyChart } from './latencyChart.js';

const PAGE = 500;
/** Pages read at the start (and after a reconnect) while they reach back less than the charts' window. */
const START_PAGES = 4;
const TEXT_DELAY_MS = 250;
const CHART_DELAY_MS = 300;
/** The charts move on with the clock even without new calls. */
const CHART_TICK_MS = 15_000;

export interface ActivityViewOptions {
  feed: ActivityFeed;
  /** The servers the panel shows, for the server filter. */
  servers: () => readonly string[];
  /** Opens filtered to this server (a card's Calls). */
  server?: string;
  now?: () => number;
}

/** Keeps a `<select>`'s options to "any" plus `values` (sorted), its choice kept. */
function syncOptions(select: HTMLSelectElement, any: string, values: Iterable<string>): void {
  const wanted = [...new Set(values)].sort();
  const have = Array.from(select.options, (o) => o.value).slice(1);
  if (wanted.length === have.length && wanted.every((v, i) => v === have[i])) return;
  const chosen = select.value;
  const keep = chosen && !wanted.includes(chosen) ? [...wanted, chosen].sort() : wanted;
  select.replaceChildren(
    el('option', undefined, any, { value: '' }),
    ...keep.map((v) => el('option', undefined, v, { value: v })),
  );
  select.value = chosen;
}

export function openActivity(opts: ActivityViewOptions): HTMLDialogElement {
  const now = opts.now ?? Date.now;
  const d = createDialog('Activity', 'activity-view');
  const serverSel = el('select');
  const agentSel = el('select');
  const outcomeSel = el('select');
  syncOptions(serverSel, 'All servers', opts.servers());
  syncOptions(agentSel, 'All agents', []);
  outcomeSel.append(el('option', undefined, 'Any outcome', { value: '' }));
  for (const [v, t] of Object.entries(OUTCOME_LABELS)) outcomeSel.append(el('option', undefined, t, { value: v }));
  if (opts.server) {
    syncOptions(serverSel, 'All servers', [...opts.servers(), opts.server]);
    serverSel.value = opts.server;
  }
  const search = el('input', undefined, undefined, { type: 'search', spellcheck: 'false', autocomplete: 'off' });
  const close = button('Close');
  const bar = el('div', 'activity-controls');
  bar.append(
    field('Server', serverSel),
    field('Agent', agentSel),
    field('Outcome', outcomeSel),
    field('Search calls', search),
    close,
  );
  const link = el('p', 'activity-link', 'Connecting\u2026', { role: 'status' });
  const count = el('p', 'activity-count');
  const chartList = el('section', 'latency-list', undefined, { 'aria-label': 'Latency per server' });
  const chartNote = el('p', 'latency-none', `No calls in the last ${CHART_MINUTES} minutes.`);
  const store = new ActivityStore();
  let selected: number | undefined;
  const feed = opts.feed;
  const detail = createCallDetail(
    feed.openView
      ? { openView: feed.openView.bind(feed), ...(feed.acceptView ? { acceptView: feed.acceptView.bind(feed) } : {}) }
      : undefined,
  );
  const table = createCallTable((seq) => {
    selected = seq;
    table.select(seq);
    detail.show(store.get(seq));
  });
  const grid = el('div', 'activity-grid');
  grid.append(table.root, detail.root);
  d.body.append(bar, link, chartList, count, grid);

  const query = (): ActivityQuery => {
    const q: ActivityQuery = {};
    if (serverSel.value) q.server = serverSel.value;
    if (agentSel.value) q.client = agentSel.value;
    if (outcomeSel.value) q.outcome = outcomeSel.value as ActivityOutcome;
    const text = search.value.trim();
    if (text) q.text = text;
    return q;
  };
  const filtered = () => Object.keys(query()).length > 0;
  let held: number | undefined;

  const showCount = () => {
    const shown = table.count;
    const limit = shown >= MAX_ROWS ? ` (the newest ${MAX_ROWS})` : '';
    const of = held !== undefined ? `; the bridge holds ${held}` : '';
    setText(
      count,
      `${shown} call${shown === 1 ? '' : 's'} shown${filtered() ? ' that match the filters' : ''}${limit}${of}`,
    );
  };
  const renderTable = () => {
    table.set(store.matching(query(), MAX_ROWS));
    table.select(selected);
    showCount();
  };
  /** The servers and agents the filters offer beyond the panel's servers. */
  const known = { servers: new Set<string>(), clients: new Set<string>() };
  const syncFilters = () => {
    known.servers.clear();
    known.clients.clear();
    for (const r of store.all()) {
      if (r.server) known.servers.add(r.server);
      if (r.client) known.clients.add(r.client);
    }
    syncOptions(serverSel, 'All servers', [...opts.servers(), ...known.servers]);
    syncOptions(agentSel, 'All agents', known.clients);
  };

  const charts = new Map<string, LatencyChart>();
  const drawCharts = () => {
    const t = now();
    const from = t - CHART_MINUTES * 60_000;
    const q = query();
    const ids = new Set<string>();
    for (const r of store.all()) if (r.server && Date.parse(r.at) >= from) ids.add(r.server);
    const shown = [...ids].filter((id) => q.server === undefined || id === q.server).sort();
    for (const [id, c] of charts)
      if (!shown.includes(id)) {
        c.root.remove();
        charts.delete(id);
      }
    const nodes: HTMLElement[] = [];
    for (const id of shown) {
      let c = charts.get(id);
      if (!c) charts.set(id, (c = createLatencyChart(id)));
      c.update(store.all(), t);
      nodes.push(c.root);
    }
    chartList.replaceChildren(...(nodes.length ? nodes : [chartNote]));
  };
  let chartTimer: ReturnType<typeof setTimeout> | undefined;
  const scheduleCharts = () => {
    if (chartTimer === undefined)
      chartTimer = setTimeout(() => {
        chartTimer = undefined;
        drawCharts();
      }, CHART_DELAY_MS);
  };
  const chartTick = setInterval(drawCharts, CHART_TICK_MS);

  /** Bumped when the store starts again, so a page asked for before cannot refill it. */
  let epoch = 0;
  const load = async (q: ActivityQuery, pages: number) => {
    const mine = epoch;
    let before: number | undefined;
    for (let n = 0; n < pages; n++) {
      const r = await opts.feed.page({ ...q, limit: PAGE, ...(before !== undefined ? { before } : {}) });
      if (mine !== epoch) return;
      if (!r.ok) {
        setText(link, `The activity log cannot be read: ${r.error}`);
        return;
      }
      store.add(r.records);
      if (Object.keys(q).length === 0) held = r.held;
      const oldest = r.records[r.records.length - 1];
      if (r.next === undefined || !oldest || Date.parse(oldest.at) < now() - CHART_MINUTES * 60_000) break;
      before = r.next;
    }
    syncFilters();
    renderTable();
    drawCharts();
  };

  const onRecord = (r: ActivityRecord) => {
    if (store.add([r]).length === 0) return;
    if (held !== undefined) held++;
    if ((r.server && !known.servers.has(r.server)) || (r.client && !known.clients.has(r.client))) syncFilters();
    const q = query();
    if (matches(r, q, q.text?.toLowerCase())) table.prepend(r);
    showCount();
    scheduleCharts();
  };
  const onState = (state: FeedState, why?: string) => {
    if (state === 'live') {
      setText(link, 'Live: new calls appear at the top.');
      epoch++;
      store.clear();
      held = undefined;
      void load({}, START_PAGES).then(() => (filtered() ? load(query(), 1) : undefined));
    } else
      setText(link, state === 'off' ? (why ?? 'The activity log is off.') : `Reconnecting\u2026 ${why ?? ''}`.trim());
  };
  const stop = opts.feed.follow(onRecord, onState);

  let textTimer: ReturnType<typeof setTimeout> | undefined;
  const refilter = () => {
    renderTable();
    drawCharts();
    if (filtered()) void load(query(), 1);
  };
  for (const s of [serverSel, agentSel, outcomeSel]) s.addEventListener('change', refilter);
  search.addEventListener('input', () => {
    renderTable();
    clearTimeout(textTimer);
    textTimer = setTimeout(refilter, TEXT_DELAY_MS);
  });
  close.addEventListener('click', () => d.close());
  d.root.addEventListener('close', () => {
    stop();
    clearInterval(chartTick);
    clearTimeout(chartTimer);
    clearTimeout(textTimer);
  });
  renderTable();
  drawCharts();
  d.open();
  (opts.server ? search : serverSel).focus();
  return d.root;
}
