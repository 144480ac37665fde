/**
 * The Activity details' "Open app" for a call with an MCP Apps view: the view rendered below
 * it (`mountMcpApp`, loaded then: mcpApp/mcpAppLoader.ts), or why not. A view that changed since it was first shown (a drift: its
 * pin differs) is not rendered: what changed is shown (its URI, the pinned and the new hash)
 * with the button "Accept new view", which accepts that hash and then opens the view.
 * Server strings go in through textContent (dom.ts).
 */
import type { AppViewDrift } from '../shared/appView.js';
import type { ActivityFeed } from './activityFeed.js';
import { el } from './dom.js';
import { button } from './controls.js';
import { ViewDriftError } from './mcpApp/keptView.js';
import { loadMountMcpApp } from './mcpApp/mcpAppLoader.js';

/** Where views come from: the Activity feed's `openView`, and its `acceptView` for a drift. */
export type ViewOpener = Required<Pick<ActivityFeed, 'openView'>> & Pick<ActivityFeed, 'acceptView'>;

/** The button and the place the view goes; `unmount` removes a rendered view. */
export interface AppViewButton {
  readonly parts: HTMLElement[];
  unmount(): void;
}

const short = (hash: string) => hash.slice(0, 12);

export function createAppViewButton(views: ViewOpener, key: string): AppViewButton {
  let unmount: (() => void) | undefined;
  const place = el('div', 'call-app');
  const open = button('Open app');

  const show = () => {
    open.disabled = true;
    Promise.all([views.openView(key), loadMountMcpApp()]).then(
      ([view, mountMcpApp]) => {
        place.replaceChildren();
        unmount = mountMcpApp(place, view);
        open.remove();
      },
      (err: unknown) => {
        open.disabled = false;
        if (err instanceof ViewDriftError && views.acceptView) return place.replaceChildren(driftNotice(err.drift));
        place.replaceChildren(el('p', 'call-app-error', `The view cannot be shown: ${(err as Error).message}`));
      },
    );
  };

  const driftNotice = (d: AppViewDrift): HTMLElement => {
    const box = el('section', 'drifts view-drift', undefined, { 'aria-label': `Changed view of ${d.server}` });
    const accept = el('button', 'drift-accept', 'Accept new view', { type: 'button' });
    const error = el('p', 'drift-error', undefined, { role: 'alert' });
    error.hidden = true;
    accept.addEventListener('click', () => {
      if (accept.getAttribute('aria-disabled') === 'true') return;
      accept.setAttribute('aria-disabled', 'true');
      void views.acceptView!(key, d.hash).then((r) => {
        accept.setAttribute('aria-disabled', 'false');
        if (!r.ok) {
          error.hidden = false;
          error.textContent = `Could not save the decision: ${r.error ?? 'refused'}`;
          return;
        }
        show();
      });
    });
    const buttons = el('div', 'drift-buttons');
    buttons.append(accept);
    box.append(
      el('h3', 'drift-title', `View ${d.uri} of ${d.server} changed`),
      el(
        'p',
        'drift-intro',
        'This view changed since you first saw it and is not shown until you accept the new view.',
      ),
      el('p', 'drift-hashes', `Pinned ${short(d.pinned)}\u2026, now ${short(d.hash)}\u2026`),
      buttons,
      error,
    );
    return box;
  };

  open.addEventListener('click', show);
  return {
    parts: [open, place],
    unmount: () => {
      unmount?.();
      unmount = undefined;
    },
  };
}
