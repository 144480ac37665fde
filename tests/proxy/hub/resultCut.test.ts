// The cut of a tool result over its cap (economy/resultCut.ts), the pages a kept result is
// read back in (resultPages.ts), the per-session store (resultStore.ts) and the byte counting
// under them (jsonSize.ts), in memory: every size exact, every piece put back equal.
import { describe, expect, it } from 'vitest';
import { cutResult } from '../../../src/proxy/hub/economy/resultCut.js';
import { ITEM_META, PAGE_META, pageCount, readPage } from '../../../src/proxy/hub/economy/resultPages.js';
import { KeptLedger, ResultStore } from '../../../src/proxy/hub/economy/resultStore.js';
import { fittingPrefix, jsonBytes } from '../../../src/proxy/hub/economy/jsonSize.js';
import { sizeOverCap } from '../../../src/proxy/hub/economy/resultCap.js';

type Obj = Record<string, unknown>;
type Item = { type: string; text?: string; data?: string; mimeType?: string };
const URI = 'qiming-result://0123456789ab/1';

const text = (n: number, unit = 'abcdefghij') => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
const textItem = (t: string): Item => ({ type: 'text', text: t });
const contentOf = (r: Obj) => r.content as Item[];
const noteOf = (r: Obj) => contentOf(r).at(-1)!.text!;

/** Every page of a kept result, read in order. */
function pages(result: Obj, pageBytes: number): Obj[] {
  const out: Obj[] = [];
  for (let p = 1; ; p++) {
    const page = readPage(result, URI, p, pageBytes);
    if (!page) return out;
    out.push(page);
  }
}

/** The original items' texts and blobs put back from the pages, by index. */
function reassembled(all: Obj[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const page of all)
    for (const c of page.contents as Obj[]) {
      const item = (c._meta as Obj | undefined)?.[ITEM_META] as { index: number } | undefined;
      if (item) out.set(item.index, (out.get(item.index) ?? '') + String(c.text ?? c.blob));
    }
  return out;
}

describe('fittingPrefix counts bytes as JSON.stringify writes them', () => {
  const samples = [
    'plain ascii',
    'quotes " and \\ backslashes',
    'controls \n\t\r\b\f and \u0001\u001f',
    'two-byte é and three-byte € and 中文',
    'pairs 😀🎉 and a lone \ud800 and \udc00 surrogate',
    '\u2028 line separators \u2029',
  ];
  for (const s of samples) {
    it(`for ${JSON.stringify(s).slice(0, 30)}`, () => {
      expect(fittingPrefix(s, 1e9)).toEqual({ length: s.length, bytes: jsonBytes(s) - 2 });
      for (let room = 0; room <= jsonBytes(s); room++) {
        const p = fittingPrefix(s, room);
        const prefix = s.slice(0, p.length);
        expect(p.bytes).toBe(jsonBytes(prefix) - 2);
        expect(p.bytes).toBeLessThanOrEqual(room);
        // Never a half pair: the prefix does not end on a high surrogate that had its low half.
        const last = prefix.charCodeAt(prefix.length - 1);
        const next = s.charCodeAt(p.length);
        expect(last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff).toBe(false);
        // The longest: one character more would not fit.
        if (p.length < s.length) expect(fittingPrefix(s.slice(0, p.length + 2), 1e9).bytes).toBeGreaterThan(room);
      }
    });
  }
});

describe('cutResult', () => {
  it('cuts a long text to fit the cap exactly, between characters, and names the whole', () => {
    for (const unit of ['abcdefghij', 'é"\n中😀x']) {
      const result = { content: [textItem(text(50_000, unit))] };
      const bytes = jsonBytes(result);
      for (const cap of [1024, 1500, 4096, 10_000, 30_001]) {
        const cut = cutResult(result, bytes, cap, URI, 1);
        expect(jsonBytes(cut)).toBeLessThanOrEqual(cap);
        // No more than the note's reserve below the cap is left unused.
        expect(jsonBytes(cut)).toBeGreaterThan(cap - 200);
        const kept = contentOf(cut)[0]!.text!;
        expect(result.content[0]!.text!.startsWith(kept)).toBe(true);
        expect(noteOf(cut)).toContain(`is ${bytes.toLocaleString('en-US')} bytes`);
        expect(noteOf(cut)).toContain(`cut to its first ${kept.length.toLocaleString('en-US')} of `);
        expect(noteOf(cut)).toContain(`"${URI}"`);
      }
    }
  });

  it('keeps items in order while they fit, drops those that do not, and says which', () => {
    const image = { type: 'image', data: 'A'.repeat(8000), mimeType: 'image/png' };
    const result = { content: [textItem('first'), image, textItem('caption'), textItem(text(9000))] };
    const cut = cutResult(result, jsonBytes(result), 4096, URI, 1);
    expect(jsonBytes(cut)).toBeLessThanOrEqual(4096);
    const items = contentOf(cut);
    expect(items.slice(0, 2)).toEqual([textItem('first'), textItem('caption')]);
    expect(items[2]!.text!.length).toBeGreaterThan(2000);
    expect(text(9000).startsWith(items[2]!.text!)).toBe(true);
    expect(items).toHaveLength(4);
    expect(noteOf(cut)).toMatch(
      /Kept above: 2 of 4 content items whole; item 4 \(text\) cut to its first [\d,]+ of 9,000/,
    );
    expect(noteOf(cut)).toContain('Left out: 1 item (image).');
  });

  it('keeps _meta and isError, and cuts an error result the same way', () => {
    const result = { content: [textItem(text(20_000))], isError: true, _meta: { trace: 'x' } };
    const cut = cutResult(result, jsonBytes(result), 2048, URI, 1);
    expect(cut).toMatchObject({ isError: true, _meta: { trace: 'x' } });
    expect(jsonBytes(cut)).toBeLessThanOrEqual(2048);
    expect(contentOf(cut)).toHaveLength(2);
  });

  it('keeps structuredContent whole when it fits, and cuts the content around it', () => {
    const structuredContent = { rows: text(1500) };
    const result = { structuredContent, content: [textItem(JSON.stringify(structuredContent)), textItem(text(5000))] };
    const cut = cutResult(result, jsonBytes(result), 4096, URI, 1);
    expect(cut.structuredContent).toEqual(structuredContent);
    expect(cut.isError).toBeUndefined();
    expect(jsonBytes(cut)).toBeLessThanOrEqual(4096);
    expect(noteOf(cut)).toContain('structuredContent is kept whole.');
  });

  it('leaves structuredContent out when it does not fit, marking the result isError and saying the call succeeded', () => {
    const structuredContent = { rows: text(50_000) };
    const result = { structuredContent, content: [textItem(JSON.stringify(structuredContent))] };
    const cut = cutResult(result, jsonBytes(result), 4096, URI, 1);
    expect(cut.structuredContent).toBeUndefined();
    expect(cut.isError).toBe(true);
    expect(jsonBytes(cut)).toBeLessThanOrEqual(4096);
    expect(noteOf(cut)).toMatch(/structuredContent \(50,01\d bytes\) is left out; the call itself succeeded/);
  });

  it('names the pages of a whole that takes more than one', () => {
    const cut = cutResult({ content: [textItem(text(5000))] }, 5050, 2048, URI, 3);
    expect(noteOf(cut)).toContain(`It comes in 3 pages, each naming the next ("${URI}?page=2" and on).`);
  });
});

describe('readPage', () => {
  const image = 'iVBORw0KGgo'.repeat(3000).slice(0, 32_000);
  const long = text(70_000, 'a"é中😀\n');
  const result = {
    content: [
      textItem(long),
      { type: 'image', data: image, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'file:///x.txt', mimeType: 'text/plain', text: 'embedded' } },
      { type: 'resource_link', uri: 'file:///y', name: 'y' },
    ],
    structuredContent: { n: 1 },
  };

  it('answers a whole that fits one message in one page, each item as a resource content', () => {
    const [page, more] = pages(result, 10 * 1024 * 1024);
    expect(more).toBeUndefined();
    expect(page!._meta).toEqual({ [PAGE_META]: { page: 1, pages: 1 } });
    const contents = page!.contents as Obj[];
    expect(contents.map((c) => [c.uri, c.mimeType])).toEqual([
      [URI, 'text/plain'],
      [URI, 'image/png'],
      ['file:///x.txt', 'text/plain'],
      [URI, 'application/json'],
      [URI, 'application/json'],
    ]);
    expect(contents[0]!.text).toBe(long);
    expect(contents[1]!.blob).toBe(image);
    expect(contents[2]!.text).toBe('embedded');
    expect(JSON.parse(String(contents[3]!.text))).toEqual(result.content[3]);
    expect(JSON.parse(String(contents[4]!.text))).toEqual({ n: 1 });
    expect(contents.map((c) => (c._meta as Obj)[ITEM_META])).toEqual([
      { index: 0, type: 'text' },
      { index: 1, type: 'image' },
      { index: 2, type: 'resource' },
      { index: 3, type: 'resource_link' },
      { index: 4, type: 'structuredContent' },
    ]);
  });

  it('splits a larger whole into pages under the cap, and the parts put back equal', () => {
    for (const pageBytes of [8 * 1024, 20_000, 50_000]) {
      const all = pages(result, pageBytes);
      expect(all.length).toBe(pageCount(result, URI, pageBytes));
      expect(all.length).toBeGreaterThan(1);
      all.forEach((page, i) => {
        expect(jsonBytes(page)).toBeLessThanOrEqual(pageBytes);
        const info = (page._meta as Obj)[PAGE_META] as Obj;
        expect(info.page).toBe(i + 1);
        expect(info.pages).toBe(all.length);
        if (i < all.length - 1) {
          expect(info.next).toBe(`${URI}?page=${i + 2}`);
          expect((page.contents as Obj[]).at(-1)!.text).toContain(`"${URI}?page=${i + 2}"`);
        } else expect(info.next).toBeUndefined();
      });
      const back = reassembled(all);
      expect(back.get(0)).toBe(long);
      expect(back.get(1)).toBe(image);
      expect(back.get(2)).toBe('embedded');
      // A blob's parts each decode alone: cut at multiples of four characters.
      for (const page of all)
        for (const c of page.contents as Obj[]) if (typeof c.blob === 'string') expect(c.blob.length % 4).toBe(0);
    }
  });

  it('has no page past the last', () => {
    expect(readPage(result, URI, pageCount(result, URI, 20_000) + 1, 20_000)).toBeUndefined();
  });
});

describe('ResultStore', () => {
  const big = (n: number) => ({ content: [textItem(text(n))] });
  const uriOf = (cut: Obj) => /"(qiming-result:\/\/[0-9a-f]{12}\/\d+)"/.exec(noteOf(cut))![1]!;

  it('keeps each cut result under its own URI, readable whole', () => {
    const store = new ResultStore({ maxMessageBytes: 10 * 1024 * 1024 });
    const result = big(300_000);
    const bytes = sizeOverCap(result, 100_000)!;
    expect(bytes).toBe(jsonBytes(result));
    const cut = store.cut(result, bytes, 100_000);
    const uri = uriOf(cut);
    expect(store.owns(uri)).toBe(true);
    const read = store.read(uri);
    expect('result' in read && (read.result.contents as Obj[])[0]!.text).toBe(result.content[0]!.text);
    expect(store.read(`${uri}?page=1`)).toEqual(read);
  });

  it('drops the oldest past its count, and a read of a dropped one says so', () => {
    const store = new ResultStore({ maxMessageBytes: 1024 * 1024, maxResults: 3 });
    const uris = Array.from({ length: 5 }, () => uriOf(store.cut(big(3000), 3050, 1024)));
    for (const uri of uris.slice(0, 2)) {
      const r = store.read(uri);
      expect('error' in r && r.error.message).toMatch(
        /^Resource not found: qiming-result:\/\/[0-9a-f]{12}\/[12] was dropped: this session keeps its latest 3 cut results/,
      );
    }
    for (const uri of uris.slice(2)) expect('result' in store.read(uri)).toBe(true);
  });

  it('drops the oldest past its bytes, but always keeps the latest', () => {
    const store = new ResultStore({ maxMessageBytes: 1024 * 1024, maxBytes: 10_000 });
    const first = uriOf(store.cut(big(6000), 6050, 1024));
    const second = uriOf(store.cut(big(6000), 6050, 1024));
    expect('error' in store.read(first)).toBe(true);
    expect('result' in store.read(second)).toBe(true);
    const huge = uriOf(store.cut(big(20_000), 20_050, 1024));
    expect('error' in store.read(second)).toBe(true);
    expect('result' in store.read(huge)).toBe(true);
  });

  it('is bounded with the other stores of its ledger: the one keeping the most drops its oldest', () => {
    const ledger = new KeptLedger(20_000);
    const store = () => new ResultStore({ maxMessageBytes: 1024 * 1024, ledger });
    const kept = (s: ResultStore, uri: string) => 'result' in s.read(uri);
    const [a, b, c] = [store(), store(), store()];
    const a1 = uriOf(a.cut(big(6000), 6050, 1024));
    const a2 = uriOf(a.cut(big(6000), 6050, 1024));
    const b1 = uriOf(b.cut(big(6000), 6050, 1024));
    expect(ledger.bytes).toBe(18_150);
    // 24,200 bytes: `a` keeps the most, and drops its oldest.
    const c1 = uriOf(c.cut(big(6000), 6050, 1024));
    expect([kept(a, a1), kept(a, a2), kept(b, b1), kept(c, c1)]).toEqual([false, true, true, true]);
    const dropped = a.read(a1);
    expect('error' in dropped && dropped.error.message).toMatch(
      /was dropped: this session keeps its latest 20 cut results \(at most 67,108,864 bytes, and 20,000 bytes across sessions\)/,
    );
    // Now `c` keeps the most, the one it just kept included: its older one goes.
    const c2 = uriOf(c.cut(big(6000), 6050, 1024));
    expect([kept(a, a2), kept(b, b1), kept(c, c1), kept(c, c2)]).toEqual([true, true, false, true]);
    expect(ledger.bytes).toBe(18_150);

    // A released store's bytes stop counting, and it keeps nothing more.
    b.release();
    expect(ledger.bytes).toBe(12_100);
    expect(ledger.stores.has(b)).toBe(false);
    const c3 = uriOf(c.cut(big(6000), 6050, 1024));
    expect([kept(a, a2), kept(c, c2), kept(c, c3)]).toEqual([true, true, true]);
    const late = uriOf(b.cut(big(6000), 6050, 1024));
    expect(kept(b, late)).toBe(false);
    expect(ledger.bytes).toBe(18_150);
  });

  it('keeps the result just cut even when it alone is over the bound across stores', () => {
    const ledger = new KeptLedger(5000);
    const a = new ResultStore({ maxMessageBytes: 1024 * 1024, ledger });
    const b = new ResultStore({ maxMessageBytes: 1024 * 1024, ledger });
    const a1 = uriOf(a.cut(big(6000), 6050, 1024));
    expect('result' in a.read(a1)).toBe(true);
    const b1 = uriOf(b.cut(big(6000), 6050, 1024));
    expect(['result' in a.read(a1), 'result' in b.read(b1)]).toEqual([false, true]);
    expect(ledger.bytes).toBe(6050);
  });

  it('owns only its own URIs, and names what is wrong with one it owns', () => {
    const a = new ResultStore({ maxMessageBytes: 1024 * 1024 });
    const b = new ResultStore({ maxMessageBytes: 1024 * 1024 });
    const uri = uriOf(a.cut(big(3000), 3050, 1024));
    expect(b.owns(uri)).toBe(false);
    const prefix = uri.slice(0, uri.lastIndexOf('/') + 1);
    const message = (u: string) => {
      const r = a.read(u);
      return 'error' in r ? r.error.message : 'read';
    };
    expect(message(`${prefix}7`)).toBe('Resource not found: no result 7 was kept in this session');
    expect(message(`${prefix}x`)).toMatch(/is not a kept result: its URI is qiming-result:\/\/[0-9a-f]{12}\/<n>/);
    expect(message(`${uri}?page=2`)).toBe(`Resource not found: ${uri} has 1 page, not a page 2`);
  });
});
