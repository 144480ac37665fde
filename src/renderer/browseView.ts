/**
 * "Browse": the MCP Registry searched through the runtime, one region per server (named by
 * its registry name) with its description, version, publisher, transport kinds and whether
 * it is installed (and a newer version), an Install button that opens the consent, and
 * "Open bundle" for a `.mcpb` file (and the files the app is asked to open). Results come
 * from the registry: text only.
 */
import { el } from './dom.js';
import { button, createDialog, field } from './controls.js';
import type { InstallApi, PlanRequest, RegistryResult } from './installApi.js';
import type { OpenedBundle } from '../shared/install.js';
import { openConsent } from './consentDialog.js';

export function openBrowse(api: InstallApi, onInstalled: () => void): void {
  const d = createDialog('Browse servers', 'browse-dialog');
  const search = el('input', undefined, undefined, { type: 'search', autocomplete: 'off' });
  const go = button('Search', 'primary');
  const bundle = el('input', undefined, undefined, { type: 'file', accept: '.mcpb' });
  const status = el('p', 'browse-status', undefined, { role: 'status' });
  const list = el('div', 'browse-results');
  const more = button('More results');
  more.hidden = true;
  const close = button('Close');
  const bar = el('div', 'browse-bar');
  bar.append(field('Search servers', search), go);
  const actions = el('div', 'form-actions');
  actions.append(close);
  d.body.append(
    bar,
    field('Open bundle', bundle, 'A .mcpb file: shown before anything is installed.'),
    status,
    list,
    more,
    actions,
  );
  let cursor: string | undefined;

  const startPlan = (req: PlanRequest) => {
    status.textContent = 'Making the install plan…';
    void api.plan(req).then((r) => {
      if (!r.ok) {
        status.textContent = r.error;
        return;
      }
      status.textContent = '';
      openConsent(api, r.plan, (id) => {
        status.textContent = `Installed as ${id}.`;
        onInstalled();
        void run(false);
      });
    });
  };

  const card = (s: RegistryResult) => {
    const r = el('section', 'browse-result', undefined, { 'aria-label': s.name });
    const head = el('h3', undefined, s.title ? `${s.title} (${s.name})` : s.name);
    r.append(head, el('p', 'browse-description', s.description));
    const facts = [`version ${s.version}`, `by ${s.publisher}`, s.transports.join(', ')];
    r.append(el('p', 'browse-facts', facts.join(' · ')));
    if (s.installed) r.append(el('p', 'browse-installed', `Installed (as ${s.installed})`));
    if (s.update) r.append(el('p', 'browse-update', `A newer version is available: ${s.update}`));
    const install = button(s.installed ? (s.update ? 'Update' : 'Install again') : 'Install', 'primary');
    install.setAttribute('aria-label', 'Install');
    install.addEventListener('click', () => startPlan({ registry: { name: s.name } }));
    r.append(install);
    return r;
  };

  const run = async (append: boolean) => {
    status.textContent = 'Searching…';
    const r = await api.search(search.value.trim(), append ? cursor : undefined);
    if (!r.ok) {
      status.textContent = r.error;
      return;
    }
    cursor = r.nextCursor;
    more.hidden = cursor === undefined;
    const cards = r.servers.map(card);
    if (append) list.append(...cards);
    else list.replaceChildren(...cards);
    status.textContent = r.servers.length || append ? `From ${r.registry}` : `Nothing found in ${r.registry}`;
  };

  go.addEventListener('click', () => void run(false));
  search.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') void run(false);
  });
  more.addEventListener('click', () => void run(true));
  close.addEventListener('click', () => d.close());
  bundle.addEventListener('change', () => {
    const file = bundle.files?.[0];
    if (!file) return;
    void file.arrayBuffer().then((buf) => {
      startPlan({ bundle: { fileName: file.name, data: new Uint8Array(buf) } });
      bundle.value = '';
    });
  });
  d.open();
  search.focus();
  void run(false);
}

/**
 * `.mcpb` files the app was asked to open (the OS's open-file, its command line): each one's
 * consent, as if it had been chosen with "Open bundle"; one that cannot be planned says why.
 */
export function showOpenedBundles(api: InstallApi, bundles: readonly OpenedBundle[], onInstalled: () => void): void {
  for (const b of bundles) {
    if ('plan' in b) {
      openConsent(api, b.plan, () => onInstalled());
      continue;
    }
    const d = createDialog(`Cannot open ${b.fileName}`, 'confirm');
    const close = button('Close');
    const actions = el('div', 'form-actions');
    actions.append(close);
    d.body.append(el('p', 'form-errors', b.error, { role: 'alert' }), actions);
    close.addEventListener('click', () => d.close());
    d.open();
    close.focus();
  }
}
