/**
 * "Paste a snippet": a `claude_desktop_config.json`, a Cursor or VS Code `mcp.json` (or
 * their servers part) pasted, previewed (what will be added, what is skipped and why, from
 * the runtime's own reading of it), then added in one change. Plain secrets in it (env and
 * header values that look like credentials) are named, and "Move secrets to the keychain"
 * (ticked when there is a store) sends them to the secret store instead of the file. Stored
 * secrets the snippet reads without bringing them (`${secret:NAME}`) are named under the entry
 * that reads them, with the servers they are kept for, and nothing is added until the user
 * ticks "Let them read these stored secrets" (the change then lists those names).
 */
import type { ConfigView, ImportPreview } from '../shared/configContract.js';
import type { SecretStoreStatus } from '../shared/status.js';
import { el, setHidden } from './dom.js';
import { button, createDialog, field } from './controls.js';
import type { ManagementApi } from './management.js';

export function openImportDialog(
  api: ManagementApi,
  onSaved: (config: ConfigView | undefined) => void,
): HTMLDialogElement {
  const dialog = createDialog('Paste a snippet', 'import-dialog');
  const text = el('textarea', 'snippet', undefined, { rows: '10', spellcheck: 'false' });
  const preview = button('Preview');
  const apply = button('Add servers', 'primary');
  apply.disabled = true;
  const cancel = button('Cancel');
  const result = el('div', 'import-preview', undefined, { 'aria-live': 'polite' });
  const errors = el('div', 'form-errors', undefined, { role: 'alert' });
  errors.hidden = true;
  const actions = el('div', 'form-actions');
  actions.append(preview, apply, cancel);
  dialog.body.append(
    field(
      'Snippet',
      text,
      'From claude_desktop_config.json, Cursor\u2019s mcp.json or VS Code\u2019s mcp.json: the whole file or its servers part.',
    ),
    result,
    errors,
    actions,
  );

  const showError = (msg: string) => {
    errors.replaceChildren(el('p', undefined, msg));
    setHidden(errors, false);
  };

  let moveSecrets: HTMLInputElement | undefined;
  let readSecrets: { allow: HTMLInputElement; names: string[] } | undefined;
  const render = (p: ImportPreview) => {
    moveSecrets = undefined;
    readSecrets = undefined;
    setHidden(errors, true);
    if (!p.ok) {
      result.replaceChildren();
      showError(p.error ?? 'The snippet cannot be read.');
      apply.disabled = true;
      return;
    }
    const parts: HTMLElement[] = [el('p', 'import-format', `Read as ${p.format ?? 'a servers map'}.`)];
    parts.push(el('h3', undefined, p.add.length ? `Will be added (${p.add.length})` : 'Nothing will be added'));
    const addList = el('ul', 'import-add', undefined, { 'aria-label': 'Will be added' });
    for (const a of p.add) {
      const li = el('li');
      li.append(
        el('strong', undefined, a.id),
        el('span', undefined, ` \u2014 ${a.kind === 'stdio' ? 'runs' : 'connects to'} ${a.summary}`),
      );
      for (const n of a.notes) li.append(el('p', 'import-note', n));
      if (a.secrets?.length)
        li.append(
          el('p', 'import-note', `In clear: ${a.secrets.join(', ')}${a.kind === 'remote' ? ' (headers)' : ''}`),
        );
      for (const ref of a.secretRefs ?? []) li.append(el('p', 'import-note import-secret-ref', secretRefText(ref)));
      addList.append(li);
    }
    parts.push(addList);
    const names = [...new Set(p.add.flatMap((a) => (a.secretRefs ?? []).map((r) => r.name)))];
    if (names.length) {
      const box = readSecretsBox(names.length);
      readSecrets = { allow: box.allow, names };
      box.allow.addEventListener('change', () => (apply.disabled = p.add.length === 0 || !box.allow.checked));
      parts.push(box.root);
    }
    if (p.add.some((a) => a.secrets?.length)) {
      const box = secretsBox(p.secretStore);
      moveSecrets = box.move;
      parts.push(box.root);
    }
    if (p.skip.length) {
      parts.push(el('h3', undefined, `Skipped (${p.skip.length})`));
      const skipList = el('ul', 'import-skip', undefined, { 'aria-label': 'Skipped' });
      for (const s of p.skip) {
        const li = el('li');
        li.append(el('strong', undefined, s.id), el('span', undefined, `: ${s.reason}`));
        skipList.append(li);
      }
      parts.push(skipList);
    }
    result.replaceChildren(...parts);
    apply.disabled = p.add.length === 0 || readSecrets !== undefined;
    apply.textContent = p.add.length === 1 ? 'Add 1 server' : `Add ${p.add.length} servers`;
  };

  preview.addEventListener('click', () => void api.previewImport(text.value).then(render));
  text.addEventListener('input', () => (apply.disabled = true));
  apply.addEventListener('click', () => {
    apply.disabled = true;
    const secrets = moveSecrets?.checked ? { secrets: 'store' as const } : {};
    const allowed = readSecrets?.allow.checked ? { allowSecretRefs: readSecrets.names } : {};
    void api.change({ op: 'import', text: text.value, ...secrets, ...allowed }).then((r) => {
      if (!r.ok) {
        showError([r.error ?? 'not imported', ...(r.issues ?? [])].join(' '));
        return;
      }
      dialog.close();
      onSaved(r.config);
    });
  });
  cancel.addEventListener('click', () => dialog.close());
  dialog.open();
  text.focus();
  return dialog.root;
}

/** One stored secret an entry of the snippet reads, and whose it is. */
function secretRefText(ref: { name: string; owners: string[] }): string {
  const whose = ref.owners.length
    ? `kept for your server${ref.owners.length === 1 ? '' : 's'} ${ref.owners.map((id) => `\u201c${id}\u201d`).join(', ')}`
    : 'which none of your servers uses';
  return `Reads the stored secret ${ref.name}, ${whose}. The snippet does not bring this value.`;
}

/** The user's yes to the stored secrets the snippet reads: unticked, and the import waits for it. */
function readSecretsBox(count: number): { root: HTMLElement; allow: HTMLInputElement } {
  const allow = el('input', undefined, undefined, { type: 'checkbox', name: 'allow-secret-refs' });
  const root = el('div', 'field secret-refs');
  const label = el('label');
  label.append(allow, ` Let them read ${count === 1 ? 'this stored secret' : 'these stored secrets'}`);
  root.append(
    label,
    el(
      'p',
      'field-hint',
      'A pasted snippet can name any secret you keep, such as another server\u2019s token. Tick only if you trust where it came from.',
    ),
  );
  return { root, allow };
}

/** "Move secrets to the keychain", ticked when there is a store; without one, the sentence that says why they go to the file. */
function secretsBox(state: SecretStoreStatus | undefined): { root: HTMLElement; move: HTMLInputElement } {
  const move = el('input', undefined, undefined, { type: 'checkbox', name: 'move-secrets' });
  const root = el('div', 'field secret-store');
  const label = el('label');
  label.append(move, ' Move secrets to the keychain');
  if (state?.available) {
    move.checked = true;
    root.append(
      label,
      el('p', 'field-hint', 'Only a ${secret:...} reference to each value is written to the config file.'),
    );
  } else {
    move.disabled = true;
    const why = state?.reason ? `No secret store: ${state.reason}.` : 'No secret store here.';
    root.append(
      label,
      el(
        'p',
        'field-hint secret-store-missing',
        `${why} The values are imported into the config file, readable only by you.`,
      ),
    );
  }
  return { root, move };
}
