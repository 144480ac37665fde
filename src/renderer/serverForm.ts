/**
 * The Add server / Edit dialog: stdio (Name, Command, Arguments one per line, Environment one
 * `NAME=value` per line, Working folder) or remote (URL, Headers one `Name: value` per line,
 * Transport). Secrets arrive masked and are left masked unless the user types a new value;
 * the runtime keeps the stored value behind a mask. Validation is the runtime's: its
 * messages are shown as they come, and nothing is written when it refuses. An edit is saved
 * with the version of the entry the form was filled from: when the file changed meanwhile
 * the runtime refuses it, and the form says so and shows the entry as saved now. With a secret
 * store, "Keep new values in …" (on by default) has the runtime keep each new env or header
 * value there and write only its `${secret:NAME}` reference; without one, the form says why and
 * values go to the file as before.
 */
import {
  CONFIG_CONFLICT,
  type ConfigChangeResult,
  type ConfigView,
  type EntryDraft,
  type EntryView,
} from '../shared/configContract.js';
import { el, setHidden } from './dom.js';
import { button, createDialog, field, linesOf, pairsOf, pairsText } from './controls.js';
import type { ManagementApi } from './management.js';
import { createSandboxFields } from './sandboxFields.js';
import type { SecretStoreStatus } from '../shared/status.js';

export interface ServerFormOptions {
  api: ManagementApi;
  /** The entry to edit; absent: a new server. */
  entry?: EntryView;
  onSaved(config: ConfigView | undefined): void;
  /** The entry as the file has it now (after a conflict); undefined when it is gone. */
  reload?(): Promise<EntryView | undefined>;
  /** The runtime's secret store (from the config read); absent: the runtime did not say. */
  secretStore?: SecretStoreStatus;
}

const STORE_NAME: Record<SecretStoreStatus['backend'], string> = {
  keyring: 'the OS keychain',
  app: "the app's secret store (the OS keychain)",
  none: 'a secret store',
};

/** The "keep in the secret store" box, or, without a store, the sentence that says why values go to the file. */
function secretStoreBox(state: SecretStoreStatus | undefined): { root: HTMLElement; keep: HTMLInputElement } {
  const keep = el('input', undefined, undefined, { type: 'checkbox', name: 'keep-secrets' });
  const root = el('div', 'field secret-store');
  if (state?.available) {
    keep.checked = true;
    const label = el('label');
    label.append(keep, ` Keep new values in ${STORE_NAME[state.backend]}`);
    root.append(
      label,
      el('p', 'field-hint', 'Only a ${secret:...} reference to each value is written to the config file.'),
    );
  } else {
    keep.checked = false;
    keep.disabled = true;
    const why = state?.reason ? `No secret store: ${state.reason}.` : 'No secret store here.';
    root.append(
      el('p', 'field-hint secret-store-missing', `${why} Values are saved in the config file, readable only by you.`),
    );
  }
  return { root, keep };
}

/** Shown when the entry changed in the file while the form was open. */
const CONFLICT_LINES = [
  'This server was changed in the config file while the form was open (by an editor or another window).',
  'The form now shows it as saved: make your change again, then Save.',
];

/** Opens the dialog; resolves nothing, it closes itself on Save or Cancel. */
export function openServerForm(o: ServerFormOptions): HTMLDialogElement {
  let editing = o.entry;
  const dialog = createDialog(editing ? `Edit ${editing.id}` : 'Add server', 'server-form');
  const form = el('form', 'form', undefined, { novalidate: '' });

  const name = el('input', undefined, undefined, { type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const kind = el('select');
  kind.append(
    el('option', undefined, 'Local command (stdio)', { value: 'stdio' }),
    el('option', undefined, 'Remote (URL)', { value: 'remote' }),
  );
  const command = el('input', undefined, undefined, { type: 'text', spellcheck: 'false' });
  const args = el('textarea', undefined, undefined, { rows: '3', spellcheck: 'false' });
  const env = el('textarea', undefined, undefined, { rows: '3', spellcheck: 'false' });
  const cwd = el('input', undefined, undefined, { type: 'text', spellcheck: 'false' });
  const sandbox = createSandboxFields();
  const stdioBox = el('fieldset', 'kind-fields');
  stdioBox.append(
    el('legend', undefined, 'Local command'),
    field('Command', command, 'The program to run, e.g. npx, uvx, docker or an absolute path.'),
    field('Arguments', args, 'One argument per line.'),
    field('Environment', env, 'One NAME=value per line. Saved values are shown as dots; leave them to keep them.'),
    field('Working folder', cwd, 'Optional.'),
    sandbox.root,
  );

  const url = el('input', undefined, undefined, { type: 'url', spellcheck: 'false' });
  const headers = el('textarea', undefined, undefined, { rows: '3', spellcheck: 'false' });
  const transport = el('select');
  for (const [v, t] of [
    ['auto', 'Automatic (streamable HTTP, then SSE)'],
    ['http', 'Streamable HTTP'],
    ['sse', 'SSE (legacy)'],
  ])
    transport.append(el('option', undefined, t, { value: v }));
  const remoteBox = el('fieldset', 'kind-fields');
  remoteBox.append(
    el('legend', undefined, 'Remote server'),
    field('URL', url),
    field('Headers', headers, 'One Name: value per line. Saved values are shown as dots; leave them to keep them.'),
    field('Transport', transport),
  );

  const secrets = secretStoreBox(o.secretStore);

  const errors = el('div', 'form-errors', undefined, { role: 'alert' });
  errors.hidden = true;
  const save = button('Save', 'primary', { type: 'submit' });
  const cancel = button('Cancel');
  const actions = el('div', 'form-actions');
  actions.append(save, cancel);
  form.append(
    field('Name', name, 'Letters, digits, "_", "." and "-"; used in URLs and tool names.'),
    field('Type', kind),
    stdioBox,
    remoteBox,
    secrets.root,
    errors,
    actions,
  );
  dialog.body.append(form);

  const showKind = () => {
    setHidden(stdioBox, kind.value !== 'stdio');
    setHidden(remoteBox, kind.value !== 'remote');
  };
  kind.addEventListener('change', showKind);
  /** The fields from an entry (or empty for a new server). */
  const fill = (e: EntryView | undefined) => {
    name.value = e?.id ?? '';
    kind.value = e?.kind ?? 'stdio';
    command.value = e?.command ?? '';
    args.value = (e?.args ?? []).join('\n');
    env.value = pairsText(e?.env, '=');
    cwd.value = e?.cwd ?? '';
    sandbox.fill(e?.sandbox);
    url.value = e?.url ?? '';
    headers.value = pairsText(e?.headers, ':');
    transport.value = e?.transport && ['auto', 'http', 'sse'].includes(e.transport) ? e.transport : 'auto';
    showKind();
  };
  fill(editing);

  const showErrors = (lines: string[]) => {
    errors.replaceChildren(el('p', undefined, 'Not saved:'), ...lines.map((l) => el('p', 'form-error', l)));
    setHidden(errors, lines.length === 0);
  };

  cancel.addEventListener('click', () => dialog.close());
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const problems: string[] = [];
    let draft: EntryDraft;
    if (kind.value === 'remote') {
      const h = pairsOf(headers.value, ':', 'Headers');
      problems.push(...h.errors);
      draft = { kind: 'remote', url: url.value.trim(), headers: h.map, transport: transport.value };
    } else {
      const e = pairsOf(env.value, '=', 'Environment');
      problems.push(...e.errors);
      draft = { kind: 'stdio', command: command.value.trim(), args: linesOf(args.value), env: e.map };
      if (cwd.value.trim()) draft.cwd = cwd.value.trim();
      draft.sandbox = sandbox.value();
    }
    if (problems.length) return showErrors(problems);
    if (secrets.keep.checked) draft.secrets = 'store';
    const id = name.value.trim();
    save.disabled = true;
    const pending: Promise<ConfigChangeResult> = editing
      ? o.api.change({
          op: 'update',
          id: editing.id,
          entry: draft,
          version: editing.version,
          ...(id !== editing.id ? { newId: id } : {}),
        })
      : o.api.change({ op: 'add', id, entry: draft });
    void pending.then(async (r) => {
      if (r.code === CONFIG_CONFLICT && editing && o.reload) {
        const now = await o.reload();
        if (now) {
          editing = now;
          fill(now);
          save.disabled = false;
          return showErrors(CONFLICT_LINES);
        }
        return showErrors([`${editing.id} was removed from the config file while the form was open.`]);
      }
      save.disabled = false;
      if (!r.ok) return showErrors(r.issues?.length ? r.issues : [r.error ?? 'unknown error']);
      dialog.close();
      o.onSaved(r.config);
    });
  });
  dialog.open();
  name.focus();
  return dialog.root;
}
