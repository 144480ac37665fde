/**
 * The management controls of one server card, shown when the panel can change the config:
 * the "Enabled" switch, Edit, Remove, Show log, and per tool a switch named after the tool
 * and a Test button. A slot (`.auth-slot`) is left for Sign in / Sign out (OAuth servers).
 */
import type { EntryView } from '../shared/configContract.js';
import { el, setHidden } from './dom.js';
import { button, createSwitch, type Switch } from './controls.js';

/** What the card's controls ask of the panel. */
export interface CardHooks {
  setEnabled(id: string, enabled: boolean): Promise<string | undefined>;
  setToolEnabled(id: string, tool: string, enabled: boolean): Promise<string | undefined>;
  edit(id: string): void;
  remove(id: string): void;
  test(id: string, tool: string): void;
  log(id: string): void;
}

export interface CardControls {
  /** The row of actions under the card's head. */
  readonly root: HTMLElement;
  /** Where OAuth's Sign in / Sign out buttons go. */
  readonly authSlot: HTMLElement;
  /** The config entry of this card (undefined: not in the config, or the config is not editable). */
  update(entry: EntryView | undefined): void;
  /** The controls of one tool row; `offered`: the server lists it now (a denied tool is not offered). */
  toolControls(tool: string, offered: boolean): HTMLElement | undefined;
  /** A note (an error of the last change) shown in the card. */
  note(text: string | undefined): void;
  /** An informative line (e.g. saved but not running yet). */
  info(text: string | undefined): void;
}

export function createCardControls(id: string, hooks: CardHooks | undefined): CardControls {
  const root = el('div', 'card-actions');
  const authSlot = el('div', 'auth-slot');
  const message = el('p', 'card-note', undefined, { role: 'alert' });
  message.hidden = true;
  const infoLine = el('p', 'card-info', undefined, { role: 'status' });
  infoLine.hidden = true;
  let entry: EntryView | undefined;
  const setNote = (t: string | undefined) => {
    message.textContent = t ?? '';
    setHidden(message, !t);
  };

  const enabled: Switch = createSwitch('Enabled', true, (next) => {
    if (!hooks) return;
    enabled.setBusy(true);
    void hooks.setEnabled(id, next).then((err) => {
      enabled.setBusy(false);
      setNote(err);
      if (!err) enabled.set(next);
    });
  });
  const enabledWrap = el('div', 'enabled-wrap');
  enabledWrap.append(el('span', 'switch-label', 'Enabled', { 'aria-hidden': 'true' }), enabled.root);
  const edit = button('Edit');
  const remove = button('Remove', 'danger');
  const log = button('Show log');
  edit.addEventListener('click', () => hooks?.edit(id));
  remove.addEventListener('click', () => hooks?.remove(id));
  log.addEventListener('click', () => hooks?.log(id));
  root.append(enabledWrap, edit, remove, log, authSlot, message, infoLine);
  root.hidden = true;

  return {
    root,
    authSlot,
    update(e) {
      entry = e;
      const managed = hooks !== undefined && e !== undefined;
      setHidden(enabledWrap, !managed);
      setHidden(edit, !managed);
      setHidden(remove, !managed);
      setHidden(log, hooks === undefined);
      setHidden(root, hooks === undefined);
      if (e) enabled.set(!e.disabled);
    },
    toolControls(tool, offered) {
      if (!hooks) return undefined;
      const wrap = el('span', 'tool-controls');
      if (entry) {
        const denied = entry.deniedTools.includes(tool);
        const sw: Switch = createSwitch(tool, !denied, (next) => {
          sw.setBusy(true);
          void hooks.setToolEnabled(id, tool, next).then((err) => {
            sw.setBusy(false);
            setNote(err);
            if (!err) sw.set(next);
          });
        });
        wrap.append(sw.root);
      }
      if (offered) {
        const test = button('Test', 'test', { 'aria-label': 'Test', 'data-tool': tool });
        test.addEventListener('click', () => hooks.test(id, tool));
        wrap.append(test);
      }
      return wrap;
    },
    note: setNote,
    info(t) {
      if (infoLine.textContent !== (t ?? '')) infoLine.textContent = t ?? '';
      setHidden(infoLine, !t);
    },
  };
}
