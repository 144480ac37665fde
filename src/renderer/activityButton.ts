/**
 * The way into the Activity view: an "Activity" button in the panel's header, beside the
 * management buttons when there are any, and the opener a card's Calls button uses
 * (filtered to its server). One view at a time.
 */
import { el } from './dom.js';
import { button } from './controls.js';
import type { ActivityFeed } from './activityFeed.js';
import { openActivity } from './activityView.js';

export interface ActivityOpener {
  /** Opens the view, filtered to `server` when given. */
  open(server?: string): void;
  /** The header's toolbar: the Activity button, then `rest` (the management toolbar). */
  toolbar(rest?: HTMLElement): HTMLElement;
}

export function createActivityOpener(feed: ActivityFeed, servers: () => readonly string[]): ActivityOpener {
  let current: HTMLDialogElement | undefined;
  const open = (server?: string) => {
    if (current?.open) return;
    current = openActivity({ feed, servers, ...(server !== undefined ? { server } : {}) });
  };
  return {
    open,
    toolbar(rest) {
      const views = button('Activity', '', { 'aria-haspopup': 'dialog' });
      views.addEventListener('click', () => open());
      const wrap = el('div', 'panel-tools');
      wrap.append(views);
      if (rest) wrap.append(rest);
      return wrap;
    },
  };
}
