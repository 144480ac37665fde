/**
 * A kept tool result as `resources/read` answers it: its content items as resource contents,
 * in order (a text item as `text`, an image or audio item as `blob`, an embedded resource as
 * itself, any other item as its JSON in `text`), then its structuredContent as JSON text;
 * each content's text or blob exactly the original's.
 *
 * A result larger than one message may be (`--max-message-bytes`) comes in pages:
 * `<uri>?page=2` and on. Every page's `_meta["qiming-mcp-runtime/page"]` says
 * `{page, pages, next}`, and a page with a next one ends with a short text content naming it
 * (for a model that sees only text). A content too large for one page is split between
 * pages, a text between characters, a blob at a multiple of four base64 characters, so each
 * part decodes alone. Every content that carries an original item has
 * `_meta["qiming-mcp-runtime/item"]: {index, type}` (and `part`, `parts` when split): the
 * item's index in `content` (structuredContent: the index after the last item), so a reader
 * puts the whole back by concatenating the parts of each index in order.
 */
import { fittingPrefix, grouped, jsonBytes } from './jsonSize.js';

type Obj = Record<string, unknown>;

export const ITEM_META = 'qiming-mcp-runtime/item';
export const PAGE_META = 'qiming-mcp-runtime/page';

/** One resource content before paging: its fields without the long one, which field that is, its value. */
interface Entry {
  index: number;
  type: string;
  frame: Obj;
  field: 'text' | 'blob';
  value: string;
}

/** A piece of an entry on a page: `value.slice(start, end)`, part `part` of the entry. */
interface Slice {
  entry: number;
  start: number;
  end: number;
  part: number;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function entriesOf(result: Obj, uri: string): Entry[] {
  const items: unknown[] = Array.isArray(result.content) ? result.content : [];
  const out: Entry[] = items.map((item, index): Entry => {
    const i = isObj(item) ? item : {};
    const type = typeof i.type === 'string' ? i.type : 'unknown';
    if (type === 'text' && typeof i.text === 'string')
      return { index, type, frame: { uri, mimeType: 'text/plain' }, field: 'text', value: i.text };
    if ((type === 'image' || type === 'audio') && typeof i.data === 'string') {
      const frame = typeof i.mimeType === 'string' ? { uri, mimeType: i.mimeType } : { uri };
      return { index, type, frame, field: 'blob', value: i.data };
    }
    if (type === 'resource' && isObj(i.resource)) {
      const { text, blob, ...frame } = i.resource;
      if (typeof text === 'string') return { index, type, frame, field: 'text', value: text };
      if (typeof blob === 'string') return { index, type, frame, field: 'blob', value: blob };
    }
    return { index, type, frame: { uri, mimeType: 'application/json' }, field: 'text', value: JSON.stringify(item) };
  });
  if (result.structuredContent !== undefined) {
    const value = JSON.stringify(result.structuredContent);
    out.push({
      index: items.length,
      type: 'structuredContent',
      frame: { uri, mimeType: 'application/json' },
      field: 'text',
      value,
    });
  }
  return out;
}

function contentOf(e: Entry, value: string, part?: { part: number; parts: number }): Obj {
  const meta = {
    ...(isObj(e.frame._meta) ? e.frame._meta : {}),
    [ITEM_META]: { index: e.index, type: e.type, ...part },
  };
  return { ...e.frame, [e.field]: value, _meta: meta };
}

const pageUri = (uri: string, page: number): string => (page === 1 ? uri : `${uri}?page=${page}`);

function pageNote(uri: string, page: number, pages: number): Obj {
  const text = `[qiming-mcp-runtime] Page ${grouped(page)} of ${grouped(pages)} of "${uri}"; the next: resources/read with the uri "${pageUri(uri, page + 1)}".`;
  return { uri, mimeType: 'text/plain', text };
}

/** A number as wide as any page count or part number could be, for room that is never short. */
const WIDE = 999_999_999;

/** The pages of `entries`, each a list of slices whose page is at most `pageBytes` bytes. */
function layout(entries: Entry[], uri: string, pageBytes: number): Slice[][] {
  const overhead =
    jsonBytes({
      contents: [pageNote(uri, WIDE, WIDE)],
      _meta: { [PAGE_META]: { page: WIDE, pages: WIDE, next: pageUri(uri, WIDE) } },
    }) + 1;
  const budget = Math.max(pageBytes - overhead, 1024);
  const pages: Slice[][] = [[]];
  let room = budget;
  const newPage = () => {
    pages.push([]);
    room = budget;
  };
  entries.forEach((e, entry) => {
    const frame = jsonBytes(contentOf(e, '', { part: WIDE, parts: WIDE }));
    const whole = frame + jsonBytes(e.value) - 2;
    const comma = () => (pages[pages.length - 1]!.length > 0 ? 1 : 0);
    if (whole + comma() > room && whole <= budget) newPage();
    if (whole + comma() <= room) {
      pages[pages.length - 1]!.push({ entry, start: 0, end: e.value.length, part: 1 });
      room -= whole + comma();
      return;
    }
    // Larger than a page: in parts, the first filling what is left of this one.
    let start = 0;
    let part = 1;
    while (start < e.value.length) {
      const free = room - frame - comma();
      let piece = free > 0 ? fittingPrefix(e.value.slice(start, start + free), free) : { length: 0, bytes: 0 };
      if (e.field === 'blob' && start + piece.length < e.value.length && piece.length % 4 !== 0) {
        const length = piece.length - (piece.length % 4);
        piece = { length, bytes: jsonBytes(e.value.slice(start, start + length)) - 2 };
      }
      if (piece.length === 0) {
        // Nothing fits even an empty page (a frame larger than a page): the rest goes on one page as it is.
        if (room === budget) piece = { length: e.value.length - start, bytes: jsonBytes(e.value.slice(start)) - 2 };
        else {
          newPage();
          continue;
        }
      }
      pages[pages.length - 1]!.push({ entry, start, end: start + piece.length, part: part++ });
      room -= frame + comma() + piece.bytes;
      start += piece.length;
    }
  });
  return pages;
}

/** The kept `result` read at `uri` (the result's own, no page): how many pages it takes. */
export function pageCount(result: Obj, uri: string, pageBytes: number): number {
  return layout(entriesOf(result, uri), uri, pageBytes).length;
}

/** Page `page` (from 1) of the kept `result`, as a ReadResourceResult; undefined past the last. */
export function readPage(result: Obj, uri: string, page: number, pageBytes: number): Obj | undefined {
  const entries = entriesOf(result, uri);
  const pages = layout(entries, uri, pageBytes);
  const slices = pages[page - 1];
  if (!slices) return undefined;
  const parts = new Map<number, number>();
  for (const p of pages) for (const s of p) parts.set(s.entry, Math.max(parts.get(s.entry) ?? 0, s.part));
  const contents = slices.map((s) => {
    const e = entries[s.entry]!;
    const n = parts.get(s.entry)!;
    return contentOf(e, e.value.slice(s.start, s.end), n > 1 ? { part: s.part, parts: n } : undefined);
  });
  const last = page === pages.length;
  if (!last) contents.push(pageNote(uri, page, pages.length));
  const info = { page, pages: pages.length, ...(last ? {} : { next: pageUri(uri, page + 1) }) };
  return { contents, _meta: { [PAGE_META]: info } };
}
