/**
 * A tool result over its cap, cut to fit it (decisions/0033-result-cap.md): its content
 * items kept in order while they fit, the first text item that does not fit cut between
 * characters to the room left, the items that do not fit dropped; then one text item that
 * says how large the result was, what was kept, and the URI of the whole (resultStore.ts).
 *
 * `structuredContent` is kept whole when it fits beside the note, since a client validates it
 * against the tool's `outputSchema` and a cut one would fail. When it does not fit it is left
 * out, and the result is marked `isError`: an SDK client refuses a success without the
 * structuredContent its tool's outputSchema promises, but takes an error; the note says the
 * call itself succeeded. The result's other fields (`_meta`, `isError`) are kept as they are.
 */
import { fittingPrefix, grouped, jsonBytes } from './jsonSize.js';

type Obj = Record<string, unknown>;

/** What a cut kept and dropped, for its note. */
interface Figures {
  bytes: number;
  cap: number;
  uri: string;
  pages: number;
  items: number;
  whole: number;
  cut?: { index: number; kept: number; of: number };
  dropped: number;
  droppedKinds: string[];
  structured?: { bytes: number; kept: boolean; wasError: boolean };
}

const kindOf = (item: unknown): string => {
  const type = (item as Obj | null)?.type;
  return typeof type === 'string' ? type : 'unknown';
};

const plural = (n: number, one: string, many = `${one}s`): string => `${grouped(n)} ${n === 1 ? one : many}`;

/** The note's text: short, and bounded whatever the result held. */
function noteText(f: Figures): string {
  const kept: string[] = [];
  if (f.whole > 0) kept.push(`${grouped(f.whole)} of ${plural(f.items, 'content item')} whole`);
  if (f.cut)
    kept.push(
      `item ${grouped(f.cut.index + 1)} (text) cut to its first ${grouped(f.cut.kept)} of ${plural(f.cut.of, 'character')}`,
    );
  if (kept.length === 0) kept.push('no content item');
  const parts = [
    `[qiming-mcp-runtime] This tool result is ${grouped(f.bytes)} bytes, over the proxy's limit of ${grouped(f.cap)} bytes (maxResultBytes), so it was cut.`,
    `Kept above: ${kept.join('; ')}.`,
  ];
  if (f.dropped > 0) parts.push(`Left out: ${plural(f.dropped, 'item')} (${f.droppedKinds.join(', ')}).`);
  if (f.structured?.kept) parts.push('structuredContent is kept whole.');
  else if (f.structured) {
    parts.push(
      `structuredContent (${grouped(f.structured.bytes)} bytes) is left out` +
        (f.structured.wasError
          ? '.'
          : "; the call itself succeeded, and isError is set only so that a client checking the tool's outputSchema accepts this answer."),
    );
  }
  const paging =
    f.pages > 1 ? ` It comes in ${grouped(f.pages)} pages, each naming the next ("${f.uri}?page=2" and on).` : '';
  parts.push(`The whole result: resources/read with the uri "${f.uri}".${paging}`);
  return parts.join(' ');
}

const noteItem = (f: Figures): Obj => ({ type: 'text', text: noteText(f) });

/**
 * `result` (of `bytes` bytes, over `cap`) cut to at most `cap` bytes, its note naming `uri`,
 * under which the whole is read in `pages` pages.
 */
export function cutResult(result: Obj, bytes: number, cap: number, uri: string, pages: number): Obj {
  const { content, structuredContent, ...envelope } = result;
  const items: unknown[] = Array.isArray(content) ? content : [];
  const longestText = items.reduce<number>((n, i) => {
    const text = (i as Obj | null)?.text;
    return typeof text === 'string' ? Math.max(n, text.length) : n;
  }, 0);
  const worst = (structured?: Figures['structured']): Figures => ({
    bytes,
    cap,
    uri,
    pages,
    items: items.length,
    whole: items.length,
    cut: { index: items.length, kept: longestText, of: longestText },
    dropped: items.length,
    droppedKinds: [...new Set(items.map(kindOf))],
    structured,
  });

  let base: Obj = envelope;
  let structured: Figures['structured'];
  if (structuredContent !== undefined) {
    const wasError = envelope.isError === true;
    const sBytes = jsonBytes(structuredContent);
    const kept = {
      ...envelope,
      structuredContent,
      content: [noteItem(worst({ bytes: sBytes, kept: true, wasError }))],
    };
    structured = { bytes: sBytes, kept: jsonBytes(kept) <= cap, wasError };
    base = structured.kept ? { ...envelope, structuredContent } : { ...envelope, isError: true };
  }

  // The room for items: the cap less the rest of the result and the longest note it could need.
  let room = cap - jsonBytes({ ...base, content: [] }) - jsonBytes(noteItem(worst(structured))) - 1;
  const keptItems: unknown[] = [];
  const f: Figures = { ...worst(structured), whole: 0, cut: undefined, dropped: 0, droppedKinds: [] };
  const drop = (item: unknown) => {
    f.dropped++;
    if (!f.droppedKinds.includes(kindOf(item))) f.droppedKinds.push(kindOf(item));
  };
  items.forEach((item, index) => {
    const comma = keptItems.length > 0 ? 1 : 0;
    const size = jsonBytes(item) + comma;
    if (size <= room) {
      keptItems.push(item);
      f.whole++;
      room -= size;
      return;
    }
    const text = (item as Obj | null)?.text;
    if (f.cut || kindOf(item) !== 'text' || typeof text !== 'string') return drop(item);
    const frame = jsonBytes({ ...(item as Obj), text: '' }) + comma;
    const start = fittingPrefix(text, room - frame);
    if (start.length === 0) return drop(item);
    keptItems.push({ ...(item as Obj), text: text.slice(0, start.length) });
    f.cut = { index, kept: start.length, of: text.length };
    room -= frame + start.bytes;
  });
  const out = { ...base, content: [...keptItems, noteItem(f)] };
  // The room above is exact; should a shape it did not foresee make the cut overrun, the note alone stays.
  if (jsonBytes(out) <= cap) return out;
  return {
    ...base,
    content: [noteItem({ ...f, whole: 0, cut: undefined, dropped: items.length, droppedKinds: worst().droppedKinds })],
  };
}
