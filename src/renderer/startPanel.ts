/**
 * The status panel as a function: picks the data source (the Electron preload API when
 * present, else the bridge over HTTP), mounts the panel into an element and keeps it live.
 * Used by the panel page (main.ts) and by apps that mount it into a page of their own.
 */
import type { RuntimeStatus } from '../shared/status.js';
import type { StatusSource } from './dataSource.js';
import { HttpStatusSource, takeTokenFromLocation } from './httpSource.js';
import { PreloadStatusSource, findPreloadApi } from './preloadSource.js';
import { createStatusPanel } from './render.js';
import { createManageWiring } from './managePanel.js';
import { createActivityOpener } from './activityButton.js';

const TICK_MS = 1000;

/** The preload API inside Electron, otherwise the bridge that served this page. */
export function chooseSource(win: Window): StatusSource {
  const api = findPreloadApi(win);
  if (api) return new PreloadStatusSource(api);
  return new HttpStatusSource({ baseUrl: win.location.origin, token: takeTokenFromLocation(win) });
}

/** Wires `source` to a panel mounted in `root`; returns a function that stops everything. */
export function startPanel(root: HTMLElement, source: StatusSource): () => void {
  const pending = new Set<string>();
  let gotEvent = false;

  const manage = source.management ? createManageWiring(source.management) : undefined;
  let serverIds: string[] = [];
  const activity = source.activity ? createActivityOpener(source.activity, () => serverIds) : undefined;
  const toolbar = activity ? activity.toolbar(manage?.toolbar) : manage?.toolbar;
  const panel = createStatusPanel(root, {
    ...(manage ? { cardHooks: manage.hooks } : {}),
    ...(toolbar ? { toolbar } : {}),
    ...(activity ? { onCalls: activity.open } : {}),
    onRestart(id) {
      if (pending.has(id)) return; // one request at a time per server
      pending.add(id);
      panel.setRestartPending(id, true);
      source
        .restart(id)
        .catch((err: unknown) => ({ ok: false, error: err instanceof Error ? err.message : String(err) }))
        .then((result) => {
          pending.delete(id);
          panel.setRestartPending(id, false, result.ok ? undefined : (result.error ?? 'unknown error'));
        });
    },
    onPin(id, tool, decision, hash) {
      const key = `pin:${id}\0${tool}`;
      if (pending.has(key) || !source.decidePin) return;
      pending.add(key);
      panel.setPinPending(id, tool, true);
      source
        .decidePin(id, tool, decision, hash)
        .catch((err: unknown) => ({ ok: false, error: err instanceof Error ? err.message : String(err) }))
        .then((result) => {
          pending.delete(key);
          panel.setPinPending(id, tool, false, result.ok ? undefined : (result.error ?? 'unknown error'));
        });
    },
    onAuth(id, action) {
      const key = `auth:${id}`;
      const call = action === 'sign-in' ? source.signIn : source.signOut;
      if (pending.has(key) || !call) return;
      pending.add(key);
      panel.setAuthPending(id, true);
      call
        .call(source, id)
        .catch((err: unknown) => ({ ok: false, error: err instanceof Error ? err.message : String(err) }))
        .then((result) => {
          pending.delete(key);
          panel.setAuthPending(id, false, result.ok ? undefined : (result.error ?? 'unknown error'));
        });
    },
  });

  manage?.attach((c) => panel.setConfig(c));
  const show = (status: RuntimeStatus) => {
    serverIds = status.servers.map((s) => s.id);
    panel.render(status);
    manage?.onStatus(status);
  };
  const offStatus = source.onStatus((status) => {
    gotEvent = true;
    show(status);
  });
  const offConnection = source.onConnection?.((state, detail) => panel.setConnection(state, detail));
  source.getStatus().then(
    (status) => {
      // A live event may already have brought something newer.
      if (!gotEvent) show(status);
    },
    (err: unknown) => {
      // Sources with a connection state report failures themselves, and keep retrying.
      if (!source.onConnection) panel.setConnection('down', err instanceof Error ? err.message : String(err));
    },
  );
  const ticker = setInterval(() => panel.tick(), TICK_MS);

  return () => {
    clearInterval(ticker);
    offStatus();
    offConnection?.();
  };
}
