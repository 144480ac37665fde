/**
 * Wires the management UI to a {@link ManagementApi}: the header bar (Add server, Paste a
 * snippet), the cards' hooks (Enabled, tool switches, Edit, Remove, Test, Show log), the
 * per-agent selection when the source has agents, and the config reloads that keep the
 * cards' entries current (after every change, when the set of servers in the status
 * changes, and before the Edit form opens). Every change to an entry carries the version
 * the panel read; when the file changed since (an editor saved it), the runtime refuses it
 * (CONFIG_CONFLICT): the panel says so and reloads.
 */
import { CONFIG_CONFLICT, type ConfigChangeResult, type ConfigView, type EntryView } from '../shared/configContract.js';
import type { RuntimeStatus } from '../shared/status.js';
import { el } from './dom.js';
import { button, createDialog } from './controls.js';
import type { CardHooks } from './cardControls.js';
import type { ManagementApi } from './management.js';
import { openServerForm } from './serverForm.js';
import { openImportDialog } from './importDialog.js';
import { openToolTest } from './toolTest.js';
import { openLogView } from './logView.js';
import { openBrowse, showOpenedBundles } from './browseView.js';
import { createAgentSection } from './agentSection.js';

/** What the panel says when a change was refused because the entry changed in the file meanwhile. */
const CONFLICT_MESSAGE =
  'This server was changed in the config file since the panel read it (by an editor or another window). The panel now shows it as saved: make your change again.';

export interface ManageWiring {
  toolbar: HTMLElement;
  hooks: CardHooks;
  /** Gives the panel's `setConfig`; loads the config once. */
  attach(setConfig: (c: ConfigView | undefined) => void): void;
  /** Called with every status: reloads the config when the server ids changed. */
  onStatus(status: RuntimeStatus): void;
}

export function createManageWiring(api: ManagementApi): ManageWiring {
  let setConfig: (c: ConfigView | undefined) => void = () => undefined;
  let config: ConfigView | undefined;
  let idsKey = '';
  const notice = el('p', 'manage-notice', undefined, { role: 'status' });
  notice.hidden = true;

  const show = (c: ConfigView | undefined) => {
    config = c;
    setConfig(c);
    agents?.setServers((c?.servers ?? []).map((s) => s.id));
  };
  const reload = () =>
    api.getConfig().then((r) => {
      bar.hidden = !r.ok;
      if (r.ok) {
        // Oddities of the file that are not errors (a key written twice): said, not fatal.
        const warnings = r.config.warnings ?? [];
        notice.textContent = warnings.length ? `Note about the config file: ${warnings.join('; ')}` : '';
        notice.hidden = warnings.length === 0;
        show(r.config);
      } else {
        notice.textContent = `Servers cannot be changed here: ${r.error}`;
        // A read-only bridge (inline JSON) is a choice, not a problem: no notice for it.
        notice.hidden = 'readOnly' in r && r.readOnly === true;
        show(undefined);
      }
    });
  const saved = (c: ConfigView | undefined) => {
    if (c) show(c);
    else void reload();
  };
  const versionOf = (id: string) => config?.servers.find((s) => s.id === id)?.version;
  /** The entry as the file has it now (undefined: gone from the file). */
  const fresh = (id: string): Promise<EntryView | undefined> =>
    reload().then(() => config?.servers.find((s) => s.id === id));

  const add = button('Add server', 'primary');
  const paste = button('Paste a snippet');
  // Read again on open, as Edit does: the form says whether a secret store keeps new values as
  // the bridge knows it now, also when the first read has not come back yet.
  add.addEventListener('click', () => {
    const open = () => openServerForm({ api, onSaved: saved, secretStore: config?.secretStore });
    void reload().then(open, open);
  });
  paste.addEventListener('click', () => openImportDialog(api, saved));
  const bar = el('div', 'manage-bar');
  bar.append(add, paste);
  const install = api.install;
  if (install) {
    const browse = button('Browse');
    browse.addEventListener('click', () => openBrowse(install, () => void reload()));
    bar.append(browse);
    install.onOpenedBundles?.((list) => showOpenedBundles(install, list, () => void reload()));
  }
  const toolbar = el('div', 'manage');
  toolbar.append(bar, notice);
  const agents = api.agents ? createAgentSection(api.agents) : undefined;
  if (agents) toolbar.append(agents.root);

  const answer = (r: ConfigChangeResult) => {
    if (r.ok) saved(r.config);
    if (r.code === CONFIG_CONFLICT) {
      void reload();
      return CONFLICT_MESSAGE;
    }
    return r.ok ? r.error : [r.error, ...(r.issues ?? [])].filter(Boolean).join(' ');
  };

  const confirmRemove = (id: string) => {
    const d = createDialog(`Remove ${id}?`, 'confirm');
    d.body.append(
      el(
        'p',
        undefined,
        `The entry "${id}" is deleted from the MCP config (a copy of the previous file is kept as .bak); a server installed from the registry or a bundle also loses its unpacked files and kept secrets.`,
      ),
    );
    const yes = button('Remove', 'danger');
    const no = button('Cancel');
    const err = el('p', 'form-errors', undefined, { role: 'alert' });
    err.hidden = true;
    const actions = el('div', 'form-actions');
    actions.append(yes, no);
    d.body.append(err, actions);
    no.addEventListener('click', () => d.close());
    yes.addEventListener('click', () => {
      void (async () => {
        // A server installed from a registry or a bundle is uninstalled: its entry, its unpacked
        // files and the secrets its install kept go together.
        const known = install ? await install.installed() : undefined;
        if (install && known?.ok && known.ids.includes(id)) {
          const r = await install.uninstall(id);
          if (r.ok) return d.close();
          err.textContent = r.error;
          err.hidden = false;
          return;
        }
        const r = await api.change({ op: 'remove', id, version: versionOf(id) });
        const e = answer(r);
        if (r.ok) d.close();
        else {
          err.textContent = e ?? 'not removed';
          err.hidden = false;
        }
      })();
    });
    d.open();
    no.focus();
  };

  const hooks: CardHooks = {
    setEnabled: (id, enabled) => api.change({ op: 'enable', id, enabled, version: versionOf(id) }).then(answer),
    setToolEnabled: (id, tool, enabled) =>
      api.change({ op: 'tool', id, tool, enabled, version: versionOf(id) }).then(answer),
    edit(id) {
      // Read again on open: the form starts from the file as it is, not from the last reload.
      void fresh(id).then((entry) => {
        if (entry)
          openServerForm({
            api,
            entry,
            onSaved: saved,
            reload: () => fresh(entry.id),
            secretStore: config?.secretStore,
          });
      });
    },
    remove: confirmRemove,
    test: (id, tool) => void openToolTest(api, id, tool),
    log: (id) => void openLogView(api, id),
  };

  return {
    toolbar,
    hooks,
    attach(fn) {
      setConfig = fn;
      void reload();
      void agents?.load();
    },
    onStatus(status) {
      const key = status.servers.map((s) => s.id).join('\n');
      if (key !== idsKey) {
        idsKey = key;
        void reload();
      }
    },
  };
}
