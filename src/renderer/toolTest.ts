/**
 * The Test dialog of one tool: its schema form, the call made through the bridge, and the
 * result rendered: text, images (data: URLs, which the page's CSP allows), audio as a note,
 * resource links and embedded resources, structured content, and the tool's own error flag.
 * Everything the server sent goes in as text (dom.ts), never as markup.
 */
import type { ToolCallResult } from '../shared/configContract.js';
import { el, setText } from './dom.js';
import { button, createDialog } from './controls.js';
import type { ManagementApi } from './management.js';
import { createSchemaForm } from './toolSchemaForm.js';

type Block = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : '');

function renderBlock(b: Block): HTMLElement {
  const type = str(b.type);
  if (type === 'text') return el('pre', 'result-text', str(b.text));
  if (
    type === 'image' &&
    /^image\/(png|jpeg|gif|webp)$/.test(str(b.mimeType)) &&
    /^[A-Za-z0-9+/=\s]*$/.test(str(b.data))
  ) {
    const img = el('img', 'result-image', undefined, { alt: `image (${str(b.mimeType)}) returned by the tool` });
    img.src = `data:${str(b.mimeType)};base64,${str(b.data).replace(/\s/g, '')}`;
    return img;
  }
  if (type === 'resource_link') {
    const d = el('div', 'result-link');
    d.append(el('span', undefined, 'Resource link: '), el('code', undefined, str(b.uri)));
    if (str(b.name)) d.append(el('span', undefined, ` (${str(b.name)})`));
    if (str(b.description)) d.append(el('p', undefined, str(b.description)));
    return d;
  }
  if (type === 'resource' && b.resource && typeof b.resource === 'object') {
    const r = b.resource as Block;
    const d = el('div', 'result-resource');
    d.append(el('p', undefined, `Embedded resource ${str(r.uri)}${str(r.mimeType) ? ` (${str(r.mimeType)})` : ''}`));
    d.append(el('pre', 'result-text', typeof r.text === 'string' ? r.text : `${str(r.blob).length} base64 characters`));
    return d;
  }
  if (type === 'audio')
    return el('p', 'result-note', `Audio (${str(b.mimeType)}), ${str(b.data).length} base64 characters`);
  return el('pre', 'result-text', JSON.stringify(b, null, 2));
}

/** The result of a call as elements. */
export function renderToolResult(r: ToolCallResult): HTMLElement[] {
  if (!r.ok) return [el('p', 'result-error', `The call failed: ${r.error ?? 'unknown error'}`)];
  const out: HTMLElement[] = [];
  const res = r.result ?? {};
  if (res.isError) out.push(el('p', 'result-error', 'The tool reported an error:'));
  for (const b of Array.isArray(res.content) ? res.content : [])
    if (b && typeof b === 'object') out.push(renderBlock(b as Block));
  if (res.structuredContent !== undefined) {
    out.push(
      el('h3', undefined, 'Structured content'),
      el('pre', 'result-structured', JSON.stringify(res.structuredContent, null, 2)),
    );
  }
  if (out.length === 0) out.push(el('p', 'result-note', 'The tool returned no content.'));
  return out;
}

/** Opens the Test dialog of `tool` on server `id`. */
export function openToolTest(api: ManagementApi, id: string, tool: string): HTMLDialogElement {
  const dialog = createDialog(`Test ${tool}`, 'tool-test');
  const status = el('p', 'tool-test-status', 'Loading the tool\u2019s inputs\u2026', { role: 'status' });
  const formBox = el('form', 'form', undefined, { novalidate: '' });
  // Handled by script, never submitted (the CSP has form-action 'none'), also before the inputs arrive.
  formBox.addEventListener('submit', (ev) => ev.preventDefault());
  const result = el('section', 'tool-result', undefined, { 'aria-label': 'Result', 'aria-live': 'polite' });
  const call = button('Call tool', 'primary', { type: 'submit' });
  const close = button('Cancel');
  const actions = el('div', 'form-actions');
  actions.append(call, close);
  dialog.body.append(status, formBox, result);
  close.addEventListener('click', () => dialog.close());
  dialog.open();
  void api.listTools(id).then((list) => {
    const t = list.tools.find((x) => x.name === tool);
    if (!list.ok || !t) {
      setText(
        status,
        list.ok ? `The server no longer offers ${tool}.` : `Cannot list the tools: ${list.error ?? 'unknown error'}`,
      );
      formBox.append(actions);
      call.disabled = true;
      return;
    }
    setText(status, t.description ?? '');
    const form = createSchemaForm(t.inputSchema);
    formBox.append(form.root, actions);
    formBox.addEventListener('submit', () => {
      const read = form.read();
      if (!read.args) {
        result.replaceChildren(...read.errors.map((e) => el('p', 'result-error', e)));
        return;
      }
      call.disabled = true;
      result.replaceChildren(el('p', 'result-note', 'Calling\u2026'));
      void api.callTool(id, tool, read.args).then((r) => {
        call.disabled = false;
        result.replaceChildren(...renderToolResult(r));
      });
    });
    (formBox.querySelector('input, select, textarea') as HTMLElement | null)?.focus();
  });
  return dialog.root;
}
