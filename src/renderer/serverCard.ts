/** One server's card in the panel: built once per server id, then updated in place. */
import { healthText } from './healthText.js';
import type { ServerState, ServerStatus, ToolSummary } from '../shared/status.js';
import { el, setHidden, setText, uniqueId } from './dom.js';
import { createAuthControl, type AuthAction } from './authButton.js';
import {
  SERVER_STATE_GLYPHS,
  SERVER_STATE_LABELS,
  plural,
  restartBlocked,
  toolWeightText,
  uptimeText,
} from './format.js';
import type { EntryView } from '../shared/configContract.js';
import { createCardControls, type CardControls, type CardHooks } from './cardControls.js';
import { createDriftSection, type DriftSection, type PinDecision } from './pinDrifts.js';
import { createSandboxLine } from './sandboxLine.js';

/**
 * Why a server shows no tools, by state. Empty for failed and stopped: the badge already
 * says so, and a failed card needs its room for the error and the log.
 */
const NO_TOOLS_TEXT: Record<ServerState, string> = {
  ready: 'This server offers no tools.',
  starting: 'Tools are listed once the server is ready.',
  restarting: 'Tools are listed once the server is ready.',
  failed: '',
  stopped: '',
  disabled: 'This server is disabled in the MCP config.',
  'needs-auth': 'Tools are listed once you sign in.',
};

/** The live card of one server. */
export interface ServerCard {
  readonly root: HTMLLIElement;
  update(server: ServerStatus, nowMs: number): void;
  /** A restart request is in flight (true) or finished (false, with its error if it failed). */
  setRestartPending(pending: boolean, error?: string): void;
  /** The link to the runtime is down: restarting cannot work, so the button is blocked. */
  setOffline(offline: boolean): void;
  /** A sign-in or sign-out request is in flight, or finished with its error. */
  setAuthPending(pending: boolean, error?: string): void;
  /** Refreshes the ticking uptime. */
  tick(nowMs: number): void;
  /** The server's config entry (management controls); undefined hides them. */
  setEntry(entry: EntryView | undefined): void;
  /** Tool search is on and this server's tools stay listed (`"expose": "always"`). */
  setAlwaysListed(always: boolean): void;
  readonly controls: CardControls;
  /** The drifted tools (tool pinning) and their Accept change / Reject change buttons. */
  readonly drifts: DriftSection;
}

/**
 * Builds the card for server `id`; `onRestart` runs when its Restart button is activated.
 * With `hooks` the card also carries the management controls (cardControls.ts); `onAuth`
 * runs for its Sign in / Sign out button (OAuth servers).
 */
export function createServerCard(
  id: string,
  onRestart: (id: string) => void,
  hooks?: CardHooks,
  onAuth: (id: string, action: AuthAction) => void = () => undefined,
  onPin: (id: string, tool: string, decision: PinDecision, hash: string) => void = () => undefined,
  onCalls?: (id: string) => void,
): ServerCard {
  const nameId = uniqueId('server-name');
  const root = el('li', 'server');
  root.dataset.serverId = id;
  // A region named by the server id (the heading), so each card is a landmark to jump to.
  const article = el('article', 'server-card', undefined, { role: 'region', 'aria-labelledby': nameId });
  root.append(article);

  const head = el('div', 'server-head');
  const name = el('h2', 'server-name', id, { id: nameId });
  const badge = el('span', 'badge');
  const glyph = el('span', 'badge-glyph', undefined, { 'aria-hidden': 'true' });
  const badgeText = el('span', 'badge-text');
  badge.append(glyph, badgeText);
  const transport = el('span', 'transport');
  const restart = el('button', 'restart', 'Restart', { type: 'button', 'aria-label': `Restart ${id}` });
  const auth = createAuthControl(id, onAuth);
  head.append(name, badge, transport);
  if (onCalls) {
    // Opens the Activity view filtered to this server.
    const callsLink = el('button', 'calls-link', 'Calls', { type: 'button', 'aria-label': `Calls of ${id}` });
    callsLink.addEventListener('click', () => onCalls(id));
    head.append(callsLink);
  }
  head.append(auth.button, restart);

  const facts = el('dl', 'facts');
  const fact = (label: string) => {
    const wrap = el('div', 'fact');
    const dd = el('dd');
    wrap.append(el('dt', undefined, label), dd);
    facts.append(wrap);
    return dd;
  };
  const toolCount = fact('Tools');
  const pid = fact('PID');
  const uptime = fact('Uptime');
  const restarts = fact('Restarts');
  const sessions = fact('Sessions');
  const calls = fact('Calls (5 min)');

  const restartError = el('p', 'restart-error', undefined, { role: 'alert' });
  restartError.hidden = true;

  const errorBox = el('section', 'last-error');
  const errorHeadingId = uniqueId('error-heading');
  errorBox.setAttribute('aria-labelledby', errorHeadingId);
  const errorText = el('pre', 'last-error-text', undefined, { tabindex: '0' });
  errorBox.append(el('h3', undefined, 'Last error', { id: errorHeadingId }), errorText);
  errorBox.hidden = true;

  const tools = el('details', 'tools');
  const toolsSummary = el('summary');
  const toolList = el('ul', 'tool-list');
  tools.append(toolsSummary, toolList);
  const noTools = el('p', 'no-tools');

  const logs = el('details', 'logs');
  const logsSummary = el('summary');
  const logText = el('pre', 'log-text', undefined, { tabindex: '0' });
  logText.setAttribute('aria-label', `Recent log lines of ${id}`);
  logs.append(logsSummary, logText);
  // Once the user opens or closes the log, the panel never toggles it for them again.
  let logsTouched = false;
  logsSummary.addEventListener('click', () => (logsTouched = true));

  // Which command ran and which PATH it got (login shell, fallback folders, the entry's own).
  const launch = el('details', 'launch');
  const launchText = el('pre', 'launch-text', undefined, { tabindex: '0' });
  launchText.setAttribute('aria-label', `Command and PATH of ${id}`);
  launch.append(el('summary', undefined, 'Command and PATH'), launchText);
  launch.hidden = true;

  const controls = createCardControls(id, hooks);
  const sandboxLine = createSandboxLine();
  const drifts = createDriftSection(id, (tool, decision, hash) => onPin(id, tool, decision, hash));
  let entry: EntryView | undefined;
  let lastTools: ToolSummary[] = [];

  article.append(
    head,
    controls.root,
    facts,
    sandboxLine.root,
    restartError,
    auth.error,
    errorBox,
    drifts.root,
    tools,
    noTools,
    logs,
    launch,
  );

  let current: ServerStatus | undefined;
  let pending = false;
  let offline = false;
  let toolsKey = '';
  let alwaysListed = false;

  /** `14 tools (2 turned off) · ~6.2k tokens · always listed`. */
  const refreshToolsSummary = () => {
    if (!current) return;
    const denied = (entry?.deniedTools ?? []).filter((n) => !current!.tools.some((t) => t.name === n)).length;
    const parts = [
      plural(current.tools.length, 'tool') + (denied ? ` (${denied} turned off)` : ''),
      toolWeightText(current.tools.length, current.toolCount, current.toolTokens),
      alwaysListed ? 'always listed' : undefined,
    ];
    setText(toolsSummary, parts.filter(Boolean).join(' \u00b7 '));
  };

  const refreshButton = () => {
    const blocked = pending || offline || (current !== undefined && restartBlocked(current.state));
    // aria-disabled instead of `disabled`: a focused button keeps keyboard focus while blocked.
    restart.setAttribute('aria-disabled', String(blocked));
    setText(restart, pending ? 'Restarting\u2026' : 'Restart');
    restart.setAttribute('aria-label', pending ? `Restarting ${id}` : `Restart ${id}`);
  };

  restart.addEventListener('click', () => {
    if (restart.getAttribute('aria-disabled') === 'true') return;
    onRestart(id);
  });

  const renderTools = (list: ToolSummary[]) => {
    lastTools = list;
    // Tools turned off in the config are not offered by the server: listed too, switched off.
    const offered = new Set(list.map((t) => t.name));
    const denied = (entry?.deniedTools ?? [])
      .filter((n) => !offered.has(n))
      .map((name) => ({ name, description: undefined as string | undefined, denied: true }));
    const all = [...list.map((t) => ({ ...t, denied: false })), ...denied];
    const key = JSON.stringify([all, entry?.deniedTools, hooks !== undefined, entry !== undefined]);
    if (key === toolsKey) return; // unchanged: keep the DOM (and any text selection) as it is
    toolsKey = key;
    const items = all.map((t) => {
      const li = el('li', t.denied ? 'tool tool-off' : 'tool');
      li.dataset.tool = t.name;
      li.append(el('code', 'tool-name', t.name));
      const c = controls.toolControls(t.name, !t.denied);
      if (c) li.append(c);
      if (t.description) {
        li.append(el('span', 'tool-description', t.description));
        // Focusable so a keyboard user can unfold a description clamped to two lines (panel.css).
        li.tabIndex = 0;
      }
      return li;
    });
    toolList.replaceChildren(...items);
  };

  return {
    root,
    update(server, nowMs) {
      const prev = current;
      current = server;
      if (!prev || prev.state !== server.state) {
        badge.className = `badge badge-${server.state}`;
        setText(glyph, SERVER_STATE_GLYPHS[server.state] ?? '?');
        setText(badgeText, SERVER_STATE_LABELS[server.state] ?? server.state);
        root.dataset.state = server.state;
      }
      setText(transport, server.transport);
      setText(toolCount, String(server.tools.length));
      setText(pid, server.pid !== undefined ? String(server.pid) : '\u2014');
      setText(uptime, uptimeText(server.state, server.startedAt, nowMs));
      setText(restarts, String(server.restarts));
      setText(sessions, String(server.sessions));
      setText(calls, healthText(server.health));

      setHidden(errorBox, !server.lastError);
      setText(errorText, server.lastError ?? '');

      const deniedCount = (entry?.deniedTools ?? []).filter((n) => !server.tools.some((t) => t.name === n)).length;
      setHidden(tools, server.tools.length + deniedCount === 0);
      setHidden(noTools, server.tools.length > 0 || !NO_TOOLS_TEXT[server.state]);
      refreshToolsSummary();
      setText(noTools, NO_TOOLS_TEXT[server.state] ?? '');
      renderTools(server.tools);

      const lines = server.stderrTail;
      setText(logsSummary, lines.length ? `Recent log (${plural(lines.length, 'line')})` : 'Recent log (empty)');
      setText(logText, lines.length ? lines.join('\n') : 'No log lines yet.');
      // A failed server shows its log: its last error is often only "exited with code 1"
      // and the reason is in its stderr. The bridge keeps the tail of the last attempt, so
      // lines can arrive after the state turned failed; the user's own choice always wins.
      if (server.state === 'failed' && lines.length && !logsTouched) logs.open = true;
      auth.update(server);
      drifts.update(server.pinning);
      sandboxLine.update(server.sandbox);
      setHidden(launch, !server.launch);
      setText(
        launchText,
        server.launch
          ? `command: ${server.launch.command}\nPATH (${server.launch.pathFrom}): ${server.launch.path}` +
              (server.launch.argvSecrets?.length
                ? `\nsecrets in its arguments: ${server.launch.argvSecrets.join(', ')} (other users of this computer can read them in the process list)`
                : '')
          : '',
      );
      refreshButton();
    },
    setRestartPending(isPending, error) {
      pending = isPending;
      setHidden(restartError, !error);
      setText(restartError, error ? `Restart failed: ${error}` : '');
      refreshButton();
    },
    setAuthPending(isPending, error) {
      auth.setPending(isPending, error);
    },
    setOffline(isOffline) {
      offline = isOffline;
      refreshButton();
    },
    tick(nowMs) {
      if (current) setText(uptime, uptimeText(current.state, current.startedAt, nowMs));
    },
    setAlwaysListed(always) {
      if (always === alwaysListed) return;
      alwaysListed = always;
      refreshToolsSummary();
    },
    setEntry(e) {
      entry = e;
      controls.update(e);
      renderTools(lastTools);
      if (current) this.update(current, Date.now());
    },
    controls,
    drifts,
  };
}
