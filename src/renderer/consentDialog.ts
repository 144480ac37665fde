/**
 * The consent before an install: the exact command line (or URL) as text, where it comes
 * from, the checksum, the runtime it needs, every variable and header with its value (only
 * what the user typed into a secret field masked; each value quoted as the command line is,
 * so a line break or a right-to-left override shows as an escape), a bundle's folder, tools
 * and prompts, what a re-install changes, and the values it asks for. Changing a value makes
 * a new plan (the runtime builds the command); Confirm carries out the plan shown, Cancel
 * drops it. A registry's bundle is first a download: its URL and sha256, and Download fetches
 * it and shows the bundle's own consent. A stdio server's sandbox is proposed (the paths it
 * names, the hosts of its URLs), filled into the Sandbox fields (sandboxFields.ts) and chosen
 * (On), again with each new plan until the user edits the fields, whose edits a new plan then
 * keeps; Confirm writes what the user leaves there. Every server-given string goes in through
 * textContent.
 */
import { sandboxSummary } from '../shared/sandbox.js';
import { shellWord } from '../shared/shellWords.js';
import { el } from './dom.js';
import { button, createDialog, field } from './controls.js';
import { createSandboxFields } from './sandboxFields.js';
import type { InstallApi, InstallPlanView } from './installApi.js';

function row(label: string, value: string): HTMLElement {
  const p = el('p', 'consent-row');
  p.append(el('strong', undefined, `${label}: `), el('span', undefined, value));
  return p;
}

export function openConsent(api: InstallApi, first: InstallPlanView, onInstalled: (serverId: string) => void): void {
  const d = createDialog(`Install ${first.title ?? first.name}?`, 'consent-dialog');
  const details = el('div', 'consent-details');
  const inputs = el('div', 'consent-inputs');
  const err = el('p', 'form-errors', undefined, { role: 'alert' });
  err.hidden = true;
  const confirm = button(first.download ? 'Download' : 'Confirm', 'primary');
  const cancel = button('Cancel');
  const actions = el('div', 'form-actions');
  actions.append(confirm, cancel);
  const sandbox = createSandboxFields();
  // Once the user edits the Sandbox fields, a new plan's proposal no longer refills them.
  let sandboxEdited = false;
  const edited = () => (sandboxEdited = true);
  sandbox.root.addEventListener('input', edited);
  sandbox.root.addEventListener('change', edited);
  d.body.append(details, inputs, sandbox.root, err, actions);
  let plan = first;
  const controls = new Map<string, HTMLInputElement>();

  const render = () => {
    const parts: HTMLElement[] = plan.download
      ? [
          el('p', undefined, 'It will download this bundle, check it, then show you what it runs:'),
          el('pre', 'consent-command', plan.download.url, { 'aria-label': 'Download' }),
        ]
      : [
          el('p', undefined, plan.kind === 'remote' ? 'It will connect to:' : 'It will run this command:'),
          el('pre', 'consent-command', plan.shown, { 'aria-label': plan.kind === 'remote' ? 'URL' : 'Command' }),
        ];
    parts.push(
      row(
        'Source',
        plan.source.kind === 'registry'
          ? `${plan.source.name} ${plan.source.version} from ${plan.source.registry}`
          : `the file ${plan.source.file}`,
      ),
      row('Checksum', plan.sha256 ? `${plan.checksum} (sha256 ${plan.sha256})` : plan.checksum),
      row('Server id', plan.serverId),
    );
    if (plan.author) parts.push(row('Author', plan.author));
    if (plan.folder) parts.push(row('Folder it gets', plan.folder));
    if (plan.tools?.length) parts.push(row('Tools it declares', plan.tools.join(', ')));
    if (plan.prompts?.length) parts.push(row('Prompts it declares', plan.prompts.join(', ')));
    const box = plan.sandbox;
    sandbox.root.hidden = !box;
    // Chosen: npx fetches a package it has not run before inside the sandbox (decision 0048).
    if (box) {
      if (!sandboxEdited)
        sandbox.fill({ filesystem: { read: box.read, write: box.write }, network: box.network }, 'on');
      parts.push(row('Sandbox it proposes', `${sandboxSummary(box)} (On below: change it before Confirm)`));
    }
    if (plan.download) {
      details.replaceChildren(...parts);
      confirm.disabled = false;
      return;
    }
    const vars = [
      ...plan.env.map((e) => `${shellWord(e.name)}=${shellWord(e.value)}`),
      ...plan.headers.map((h) => `${shellWord(h.name)}: ${shellWord(h.value)}`),
    ];
    parts.push(
      row(plan.headers.length ? 'Variables and headers' : 'Environment', vars.length ? vars.join('  ') : 'none'),
    );
    if ([...plan.env, ...plan.headers].some((v) => v.secret) || plan.secretsOnCommandLine.length > 0)
      parts.push(
        row(
          'Secrets kept',
          plan.secretsKept === 'store'
            ? 'in the keychain; the config file holds only references'
            : 'in the config file (readable by you only): no keychain can be used here',
        ),
      );
    if (plan.secretsOnCommandLine.length > 0)
      parts.push(
        el(
          'p',
          'consent-warning',
          `${plan.secretsOnCommandLine.join(', ')} ${plan.secretsOnCommandLine.length > 1 ? 'go' : 'goes'} on the server's command line: while it runs, other users of this computer can read ${plan.secretsOnCommandLine.length > 1 ? 'them' : 'it'} in the process list.`,
          { role: 'status' },
        ),
      );
    if (plan.runtime && !plan.runtime.found)
      parts.push(
        el(
          'p',
          'consent-warning',
          `${plan.runtime.command} is not installed on this machine (not on the login shell's PATH): the server cannot start until it is.`,
          { role: 'status' },
        ),
      );
    if (plan.changes) parts.push(row('Re-install: what changes', plan.changes.join('; ')));
    if (plan.missing.length) parts.push(el('p', 'consent-warning', `Still needed: ${plan.missing.join(', ')}`));
    details.replaceChildren(...parts);
    confirm.disabled = plan.missing.length > 0;
  };

  for (const i of first.inputs) {
    const input = el('input', undefined, undefined, { type: i.secret ? 'password' : 'text', autocomplete: 'off' });
    if (i.default !== undefined) input.placeholder = i.default;
    controls.set(i.key, input);
    inputs.append(field(`${i.label}${i.required ? ' (required)' : ''}`, input, i.description));
  }
  if (first.inputs.length) {
    const apply = button('Use these values');
    inputs.append(apply);
    apply.addEventListener('click', () => {
      const values: Record<string, string> = {};
      for (const [k, c] of controls) if (c.value !== '') values[k] = c.value;
      // The runtime makes the plan again from what it kept of this one (a bundle is not sent twice).
      void api.plan({ from: plan.planId, values }).then((r) => {
        if (!r.ok) {
          err.textContent = r.error;
          err.hidden = false;
          return;
        }
        err.hidden = true;
        plan = r.plan;
        render();
      });
    });
  }
  cancel.addEventListener('click', () => d.close());
  confirm.addEventListener('click', () => {
    confirm.disabled = true;
    void api.confirm(plan.planId, plan.sandbox ? sandbox.value() : undefined).then((r) => {
      if (r.ok && 'plan' in r) {
        // The bundle is downloaded and checked: its own consent, with what it runs, takes this one's place.
        d.close();
        openConsent(api, r.plan, onInstalled);
      } else if (r.ok) {
        d.close();
        onInstalled(r.serverId);
      } else {
        err.textContent = r.error;
        err.hidden = false;
      }
    });
  });
  render();
  d.open();
  cancel.focus();
}
