/**
 * Pure DOM rendering of the status panel: header (bridge state, start-up progress),
 * connection banner, the tool economy line, empty state and one keyed card per server. Knows nothing about
 * where the status comes from; main.ts wires it to a StatusSource.
 */
import type { RuntimeStatus, ServerState } from '../shared/status.js';
import type { ConnectionState } from './dataSource.js';
import { el, setHidden, setText } from './dom.js';
import { BRIDGE_STATE_LABELS, SERVER_STATE_LABELS, startupProgress } from './format.js';
import { createServerCard, type ServerCard } from './serverCard.js';
import type { CardHooks } from './cardControls.js';
import type { ConfigView, EntryView } from '../shared/configContract.js';
import type { AuthAction } from './authButton.js';
import { createEconomySection } from './economySection.js';
import type { PinDecision } from './pinDrifts.js';

/** What the panel asks of its owner. */
export interface PanelHandlers {
  onRestart(id: string): void;
  /** The management controls' callbacks; absent: a read-only panel. */
  cardHooks?: CardHooks;
  /** Extra content for the header (the Add server / Paste a snippet bar, the agents section). */
  toolbar?: HTMLElement;
  /** Sign in to (or out of) a server that uses OAuth. */
  onAuth?(id: string, action: AuthAction): void;
  /** Accept or reject a tool's drifted definition (tool pinning). */
  onPin?(id: string, tool: string, decision: PinDecision, hash: string): void;
  /** Show a server's calls (the Activity view); absent: no Calls button on the cards. */
  onCalls?(id: string): void;
}

/** The mounted panel. */
export interface StatusPanel {
  /** Shows `status`, updating existing server cards in place (keyed by server id). */
  render(status: RuntimeStatus): void;
  /** Shows the link state to the runtime; `detail` is a human-readable reason. */
  setConnection(state: ConnectionState, detail?: string): void;
  setRestartPending(id: string, pending: boolean, error?: string): void;
  setAuthPending(id: string, pending: boolean, error?: string): void;
  setPinPending(id: string, tool: string, pending: boolean, error?: string): void;
  /** Refreshes time-dependent text (uptimes). */
  tick(): void;
  /** The config as the management routes see it; servers only in the config get a card too. */
  setConfig(config: ConfigView | undefined): void;
}

const CONFIG_EXAMPLE =
  '{ "mcpServers": { "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] } } }';

/** Mounts the panel into `root` (its previous content is replaced). */
export function createStatusPanel(
  root: HTMLElement,
  handlers: PanelHandlers,
  now: () => number = Date.now,
): StatusPanel {
  const header = el('header', 'panel-header');
  const title = el('h1', undefined, 'MCP servers');
  const summary = el('div', 'panel-summary');
  const bridgeLine = el('p', 'bridge-line');
  const bridgeLabel = el('span', 'bridge-label', 'Bridge: ');
  const bridgeState = el('span', 'bridge-state', 'Connecting\u2026');
  const bridgeMeta = el('span', 'bridge-meta');
  bridgeLine.append(bridgeLabel, bridgeState, bridgeMeta);
  const progressLine = el('p', 'progress-line');
  const progress = el('progress', 'startup-progress', undefined, { 'aria-label': 'Servers ready' });
  const progressText = el('span', 'progress-text');
  progressLine.append(progress, progressText);
  progressLine.hidden = true;
  summary.append(bridgeLine, progressLine);
  header.append(title, summary);
  if (handlers.toolbar) header.append(handlers.toolbar);

  const banner = el('section', 'banner', undefined, { 'aria-labelledby': 'banner-title' });
  const bannerTitle = el('p', 'banner-title', undefined, { id: 'banner-title', role: 'alert' });
  const bannerDetail = el('p', 'banner-detail');
  const bannerHelp = el('p', 'banner-help');
  banner.append(bannerTitle, bannerDetail, bannerHelp);
  banner.hidden = true;

  const economy = createEconomySection();

  const main = el('main', 'panel-main', undefined, { 'aria-labelledby': 'panel-title' });
  title.id = 'panel-title';
  const loading = el('p', 'loading', 'Connecting to the MCP bridge\u2026');
  const empty = el('section', 'empty', undefined, { 'aria-labelledby': 'empty-title' });
  empty.append(
    el('h2', undefined, 'No MCP servers configured', { id: 'empty-title' }),
    el(
      'p',
      undefined,
      'The runtime is running but its config lists no servers. Add them under "mcpServers" in the MCP config file the app passes to the runtime (the same format as claude_desktop_config.json), for example:',
    ),
    el('pre', 'config-example', CONFIG_EXAMPLE),
    el(
      'p',
      undefined,
      handlers.cardHooks
        ? 'Or use "Add server" or "Paste a snippet" above: the panel writes the config file for you.'
        : 'Then restart the app (or the bridge) and they will appear here.',
    ),
  );
  empty.hidden = true;
  const list = el('ul', 'server-list', undefined, { 'aria-label': 'MCP servers' });
  main.append(loading, empty, list);

  // Polite announcements of server state changes, for screen-reader users.
  const announcer = el('div', 'sr-only', undefined, { role: 'status', 'aria-live': 'polite' });
  root.replaceChildren(header, banner, economy.root, main, announcer);

  const cards = new Map<string, ServerCard>();
  const lastStates = new Map<string, ServerState>();
  let lastStatus: RuntimeStatus | undefined;
  let lastExposure: 'all' | 'search' | undefined;
  let connection: ConnectionState = 'connected';
  let connectionDetail = '';
  let entries = new Map<string, EntryView>();

  /** A status for a server saved in the config that the runtime has not started (yet). */
  const notRunning = (e: EntryView): RuntimeStatus['servers'][number] => ({
    id: e.id,
    transport: e.kind === 'stdio' ? 'stdio' : e.transport === 'sse' ? 'sse' : 'http',
    state: e.disabled ? 'disabled' : 'stopped',
    restarts: 0,
    tools: [],
    stderrTail: [],
    sessions: 0,
  });
  const notRunningNote = (e: EntryView | undefined): string | undefined => {
    if (!e || e.disabled) return undefined;
    return e.persistent
      ? 'Saved in the config; it starts when the runtime applies the change.'
      : 'Runs in each agent session (persistent: false), not in the bridge.';
  };

  const refreshBridge = () => {
    let label: string;
    let cls: string;
    if (connection === 'down') [label, cls] = ['Unreachable', 'down'];
    else if (connection === 'reconnecting') [label, cls] = ['Reconnecting\u2026', 'reconnecting'];
    else if (!lastStatus) [label, cls] = ['Connecting\u2026', 'reconnecting'];
    else
      [label, cls] = [BRIDGE_STATE_LABELS[lastStatus.bridge.state] ?? lastStatus.bridge.state, lastStatus.bridge.state];
    setText(bridgeState, label);
    bridgeState.className = `bridge-state bridge-${cls}`;
    const b = lastStatus?.bridge;
    const meta: string[] = [];
    if (b?.port !== undefined) meta.push(`port ${b.port}`);
    if (b?.pid !== undefined) meta.push(`pid ${b.pid}`);
    if (b?.restarts) meta.push(`restarted ${b.restarts}\u00d7`);
    setText(bridgeMeta, meta.length ? ` \u00b7 ${meta.join(' \u00b7 ')}` : '');
  };

  const showBanner = (titleText: string, detail: string, help: string, kind: string) => {
    banner.className = `banner banner-${kind}`;
    setText(bannerTitle, titleText);
    setText(bannerDetail, detail);
    setText(bannerHelp, help);
    setHidden(banner, false);
  };

  const refreshBanner = () => {
    const detail = connectionDetail;
    const b = lastStatus?.bridge;
    if (connection === 'down') {
      showBanner(
        'The MCP bridge cannot be reached.',
        detail,
        'Make sure the app is running. The panel keeps retrying on its own; if the app was restarted, reopen this panel from the app, because its link carries a new access token.',
        'down',
      );
    } else if (connection === 'reconnecting') {
      showBanner(
        'Lost the connection to the MCP bridge. Reconnecting\u2026',
        detail,
        'The list below shows the last known status.',
        'reconnecting',
      );
    } else if (b && (b.state === 'crashed' || b.state === 'stopped')) {
      showBanner(
        b.state === 'crashed' ? 'The MCP bridge crashed.' : 'The MCP bridge is stopped.',
        b.lastError ?? '',
        b.state === 'crashed'
          ? 'The app restarts it automatically; if it keeps crashing, check the last error and the app log.'
          : 'Restart the app to start it again.',
        'down',
      );
    } else if (b?.configError) {
      showBanner(
        'The last change to the MCP config was not applied.',
        b.configError,
        'The servers keep running as they were. Fix the file: it is read again when it changes (the headless bridge: on SIGHUP, or by itself with --watch).',
        'config',
      );
    } else {
      setHidden(banner, true);
    }
    main.classList.toggle('stale', connection !== 'connected');
  };

  return {
    render(given) {
      lastStatus = given;
      const known = new Set(given.servers.map((x) => x.id));
      const configOnly = [...entries.values()].filter((e) => !known.has(e.id)).map(notRunning);
      const status = configOnly.length ? { ...given, servers: [...given.servers, ...configOnly] } : given;
      setHidden(loading, true);
      setHidden(empty, status.servers.length > 0);
      const nowMs = now();
      const seen = new Set<string>();
      const changes: string[] = [];
      const searching = given.economy?.inForce === 'search';
      const always = new Set(searching ? given.economy!.alwaysServers : []);
      let position = 0;
      for (const server of status.servers) {
        if (seen.has(server.id)) continue; // duplicate ids would share one card; show the first
        seen.add(server.id);
        let card = cards.get(server.id);
        if (!card) {
          card = createServerCard(
            server.id,
            (id) => handlers.onRestart(id),
            handlers.cardHooks,
            (id, action) => handlers.onAuth?.(id, action),
            (id, tool, decision, hash) => handlers.onPin?.(id, tool, decision, hash),
            handlers.onCalls,
          );
          card.setOffline(connection !== 'connected');
          card.setEntry(entries.get(server.id));
          cards.set(server.id, card);
        }
        card.update(server, nowMs);
        card.setAlwaysListed(always.has(server.id));
        card.controls.info(known.has(server.id) ? undefined : notRunningNote(entries.get(server.id)));
        // Move a card only when it is out of place: moving a node drops its focus.
        const expected = list.children[position];
        if (expected !== card.root) list.insertBefore(card.root, expected ?? null);
        position++;
        const before = lastStates.get(server.id);
        if (before !== undefined && before !== server.state) {
          changes.push(`${server.id} is now ${SERVER_STATE_LABELS[server.state] ?? server.state}.`);
        }
        lastStates.set(server.id, server.state);
      }
      for (const [id, card] of cards) {
        if (seen.has(id)) continue;
        card.root.remove();
        cards.delete(id);
        lastStates.delete(id);
      }
      const inForce = given.economy?.inForce;
      if (lastExposure !== undefined && inForce !== undefined && inForce !== lastExposure)
        changes.push(inForce === 'search' ? 'Tool search is now on.' : 'All tools are now listed.');
      if (inForce !== undefined) lastExposure = inForce;
      if (changes.length) setText(announcer, changes.join(' '));
      economy.update(given.economy, given.servers.filter((x) => (x.toolCount ?? 0) > 0).length);

      const p = startupProgress(status);
      setHidden(progressLine, p.total === 0);
      progress.max = Math.max(p.total, 1);
      progress.value = p.ready;
      const extra = [p.failed ? `${p.failed} failed` : '', p.disabled ? `${p.disabled} disabled` : ''].filter(Boolean);
      setText(progressText, `${p.ready} of ${p.total} ready${extra.length ? ` (${extra.join(', ')})` : ''}`);
      refreshBridge();
      refreshBanner();
    },
    setConnection(state, detail) {
      connection = state;
      connectionDetail = detail ?? '';
      for (const card of cards.values()) card.setOffline(state !== 'connected');
      refreshBridge();
      refreshBanner();
    },
    setRestartPending(id, pending, error) {
      cards.get(id)?.setRestartPending(pending, error);
    },
    setAuthPending(id, pending, error) {
      cards.get(id)?.setAuthPending(pending, error);
    },
    setPinPending(id, tool, pending, error) {
      cards.get(id)?.drifts.setPending(tool, pending, error);
    },
    tick() {
      const nowMs = now();
      for (const card of cards.values()) card.tick(nowMs);
    },
    setConfig(config) {
      entries = new Map((config?.servers ?? []).map((e) => [e.id, e]));
      for (const [id, card] of cards) card.setEntry(entries.get(id));
      if (lastStatus) this.render(lastStatus);
    },
  };
}
