import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  FrameDecoder,
  encodeFrame,
  type DecodedFrame,
  type Framing,
} from '../../../src/proxy/stdio/framing.js';
import { extractIdHint, extractTailIdHint, frameHint } from '../../../src/proxy/stdio/idHint.js';

const MiB = 1024 * 1024;

/** Feeds `data` cut at `cuts` (byte offsets) and flushes. */
function decodeSplit(data: Buffer, cuts: number[], decoder = new FrameDecoder()): DecodedFrame[] {
  const out: DecodedFrame[] = [];
  let prev = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    out.push(...decoder.push(data.subarray(prev, cut)));
    prev = cut;
  }
  out.push(...decoder.push(data.subarray(prev)));
  out.push(...decoder.end());
  return out;
}

function messages(frames: DecodedFrame[]): { body: string; framing: Framing }[] {
  return frames.map((f) => {
    if (f.kind !== 'message') throw new Error(`unexpected ${JSON.stringify(f)}`);
    return { body: f.body, framing: f.framing };
  });
}

const unicodeText = fc.string({ unit: 'binary', maxLength: 40 });
const jsonText = fc
  .record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.integer(), unicodeText),
    method: unicodeText,
    params: fc.jsonValue({ maxDepth: 2 }),
  })
  .map((v) => JSON.stringify(v));

/** One message encoded in one of several legal shapes. */
const encoded = fc.record({
  body: jsonText,
  framing: fc.constantFrom<Framing>('newline', 'content-length'),
  crlf: fc.boolean(),
  headerStyle: fc.constantFrom('plain', 'lower', 'typeAfter', 'typeBefore', 'spaced'),
  blankBefore: fc.constantFrom('', '\n', '\r\n', '\n\n', ' \t\r\n'),
});

type Encoded = typeof encoded extends fc.Arbitrary<infer T> ? T : never;

function encode(m: Encoded): string {
  let text = m.blankBefore;
  if (m.framing === 'newline') return text + m.body + (m.crlf ? '\r\n' : '\n');
  const n = Buffer.byteLength(m.body);
  const type = 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n';
  switch (m.headerStyle) {
    case 'plain':
      text += `Content-Length: ${n}\r\n\r\n`;
      break;
    case 'lower':
      text += `content-length:${n}\n\n`;
      break;
    case 'typeAfter':
      text += `CONTENT-LENGTH: ${n}\r\n${type}\r\n`;
      break;
    case 'typeBefore':
      text += `${type}Content-Length: ${n}\r\n\r\n`;
      break;
    case 'spaced':
      text += `Content-Length : ${n} \r\n\r\n`;
      break;
  }
  return text + m.body;
}

describe('FrameDecoder', () => {
  it('decodes any mix of framings split at any chunk boundaries (property)', () => {
    fc.assert(
      fc.property(fc.array(encoded, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 30 }), (msgs, rawCuts) => {
        const data = Buffer.from(msgs.map(encode).join(''), 'utf8');
        const cuts = rawCuts.map((c) => (data.length === 0 ? 0 : c % data.length));
        expect(messages(decodeSplit(data, cuts))).toEqual(msgs.map((m) => ({ body: m.body, framing: m.framing })));
      }),
      { numRuns: 400 },
    );
  });

  it('skips messages over the cap and resyncs, whatever the framing and chunking (property)', () => {
    const cap = 60;
    fc.assert(
      fc.property(fc.array(encoded, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 30 }), (msgs, rawCuts) => {
        const data = Buffer.from(msgs.map(encode).join(''), 'utf8');
        const cuts = rawCuts.map((c) => (data.length === 0 ? 0 : c % data.length));
        const frames = decodeSplit(data, cuts, new FrameDecoder({ maxMessageBytes: cap }));
        const expected = msgs.map((m) => {
          const bytes = Buffer.byteLength(m.body);
          return bytes > cap
            ? { kind: 'oversize', framing: m.framing, bytes }
            : { kind: 'message', body: m.body, framing: m.framing };
        });
        expect(
          frames.map((f) => (f.kind === 'oversize' ? { kind: f.kind, framing: f.framing, bytes: f.bytes } : f)),
        ).toEqual(expected);
        frames.forEach((f, i) => {
          if (f.kind === 'oversize' && f.idHint !== undefined) expect(f.idHint).toBe(JSON.parse(msgs[i]!.body).id);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('decodes byte by byte, including inside headers and multi-byte characters', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'é世🎉', params: { s: '\u00e9\u4e16\u{1f389}' } });
    const data = Buffer.from(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}${body}\n`);
    const decoder = new FrameDecoder();
    const frames: DecodedFrame[] = [];
    for (let i = 0; i < data.length; i++) frames.push(...decoder.push(data.subarray(i, i + 1)));
    expect(messages(frames)).toEqual([
      { body, framing: 'content-length' },
      { body, framing: 'newline' },
    ]);
  });

  it('returns many messages from one chunk and flushes a final line without newline at end()', () => {
    const decoder = new FrameDecoder();
    expect(messages(decoder.push(Buffer.from('{"a":1}\n\n{"b":2}\r\n{"c"')))).toEqual([
      { body: '{"a":1}', framing: 'newline' },
      { body: '{"b":2}', framing: 'newline' },
    ]);
    expect(decoder.bufferedBytes).toBe(4);
    expect(messages(decoder.push(Buffer.from(':3}')))).toEqual([]);
    expect(messages(decoder.end())).toEqual([{ body: '{"c":3}', framing: 'newline' }]);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('drops an incomplete Content-Length body at end()', () => {
    const decoder = new FrameDecoder();
    expect(decoder.push(Buffer.from('Content-Length: 10\r\n\r\n{"a"'))).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });

  it('in newline mode never treats Content-Length as a header', () => {
    const data = Buffer.from('Content-Length: 2\r\n\r\n{}');
    expect(messages(decodeSplit(data, [], new FrameDecoder({ mode: 'newline' })))).toEqual([
      { body: 'Content-Length: 2', framing: 'newline' },
      { body: '{}', framing: 'newline' },
    ]);
  });

  it('turns a header block without a usable length into an unparsable message, then resyncs', () => {
    const good = '{"jsonrpc":"2.0","method":"x"}';
    expect(messages(decodeSplit(Buffer.from(`Content-Length: abc\r\n\r\n${good}\n`), []))).toEqual([
      { body: 'Content-Length: abc', framing: 'content-length' },
      { body: good, framing: 'newline' },
    ]);
    // Missing blank line: the header is reported, the JSON line is read afresh.
    expect(messages(decodeSplit(Buffer.from(`Content-Length: 5\r\n${good}\n`), []))).toEqual([
      { body: 'Content-Length: 5', framing: 'content-length' },
      { body: good, framing: 'newline' },
    ]);
    // Content-Type alone.
    expect(messages(decodeSplit(Buffer.from(`Content-Type: x\r\n\r\n${good}\n`), []))).toEqual([
      { body: 'Content-Type: x', framing: 'content-length' },
      { body: good, framing: 'newline' },
    ]);
  });

  it('accepts a message exactly at the cap (even with \\r\\n) and skips one byte over', () => {
    const cap = 16;
    const at = 'x'.repeat(cap);
    const over = 'y'.repeat(cap + 1);
    const frames = decodeSplit(
      Buffer.from(`${at}\r\n${over}\n${over}\r\n${at}\n`),
      [3, 20],
      new FrameDecoder({ maxMessageBytes: cap }),
    );
    expect(frames).toEqual([
      { kind: 'message', body: at, framing: 'newline' },
      { kind: 'oversize', framing: 'newline', bytes: cap + 1 },
      { kind: 'oversize', framing: 'newline', bytes: cap + 1 },
      { kind: 'message', body: at, framing: 'newline' },
    ]);
    const cl = decodeSplit(
      Buffer.from(`Content-Length: ${cap + 1}\r\n\r\n${over}Content-Length: ${cap}\r\n\r\n${at}`),
      [5, 30],
      new FrameDecoder({ maxMessageBytes: cap }),
    );
    expect(cl).toEqual([
      { kind: 'oversize', framing: 'content-length', bytes: cap + 1 },
      { kind: 'message', body: at, framing: 'content-length' },
    ]);
  });

  it('skips a 12 MiB line without buffering it, keeps the id, then decodes the next request', () => {
    const decoder = new FrameDecoder();
    const head = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"blob":"';
    const total = 12 * MiB;
    const line = Buffer.alloc(total, 0x61);
    line.write(head, 0);
    const frames: DecodedFrame[] = [];
    let maxBuffered = 0;
    for (let off = 0; off < total; off += 64 * 1024) {
      frames.push(...decoder.push(line.subarray(off, off + 64 * 1024)));
      maxBuffered = Math.max(maxBuffered, decoder.bufferedBytes);
    }
    expect(frames).toEqual([]);
    expect(decoder.bufferedBytes).toBe(0); // past the cap nothing is held
    const next = '{"jsonrpc":"2.0","id":8,"method":"ping"}';
    frames.push(...decoder.push(Buffer.from(`"}}\n${next}\n`)));
    expect(maxBuffered).toBeLessThanOrEqual(DEFAULT_MAX_MESSAGE_BYTES);
    expect(frames).toEqual([
      { kind: 'oversize', framing: 'newline', bytes: total + 3, idHint: 7, shape: 'call' },
      { kind: 'message', body: next, framing: 'newline' },
    ]);
  });

  it('skips an oversize Content-Length body by its declared length without buffering it', () => {
    const decoder = new FrameDecoder({ maxMessageBytes: 1 * MiB });
    const size = 3 * MiB;
    const body = Buffer.alloc(size, 0x20);
    body.write('{"jsonrpc":"2.0","id":"big-1","method":"x","params":"', 0);
    const frames = decoder.push(Buffer.from(`Content-Length: ${size}\r\n\r\n`));
    for (let off = 0; off < size; off += 100_000) {
      frames.push(...decoder.push(body.subarray(off, off + 100_000)));
      expect(decoder.bufferedBytes).toBe(0);
    }
    // Without a frame start inside it, the declared length is what counts.
    frames.push(...decoder.push(Buffer.from('{"jsonrpc":"2.0","id":2,"method":"ping"}\n')));
    expect(frames).toEqual([
      { kind: 'oversize', framing: 'content-length', bytes: size, idHint: 'big-1', shape: 'call' },
      { kind: 'message', body: '{"jsonrpc":"2.0","id":2,"method":"ping"}', framing: 'newline' },
    ]);
  });

  it('does not let a Content-Length over the cap swallow later frames: resyncs at a header or a new line, at any split', () => {
    const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;
    const data = Buffer.from(
      `Content-Length: 99999999999\r\n\r\n${ping(5)}Content-Length: ${ping(6).length}\r\n\r\n${ping(6)}` +
        `content-length: 99999999999\n\n${ping(8)}\n${ping(9)}\n`,
    );
    const expected = [
      { kind: 'oversize', framing: 'content-length', bytes: 99999999999, idHint: 5, shape: 'call' },
      { kind: 'message', body: ping(6), framing: 'content-length' },
      { kind: 'oversize', framing: 'content-length', bytes: 99999999999, idHint: 8, shape: 'call' },
      { kind: 'message', body: ping(9), framing: 'newline' },
    ];
    expect(decodeSplit(data, [], new FrameDecoder({ maxMessageBytes: 100 }))).toEqual(expected);
    for (let cut = 1; cut < data.length; cut++) {
      expect(decodeSplit(data, [cut], new FrameDecoder({ maxMessageBytes: 100 }))).toEqual(expected);
    }
    const bytewise = new FrameDecoder({ maxMessageBytes: 100 });
    const frames: DecodedFrame[] = [];
    for (let i = 0; i < data.length; i++) frames.push(...bytewise.push(data.subarray(i, i + 1)));
    expect(frames).toEqual(expected);
  });

  it('counts a skipped line without its \\r\\n even when it overflows before the newline', () => {
    const decoder = new FrameDecoder({ maxMessageBytes: 8192 });
    const frames = decoder.push(Buffer.from('z'.repeat(9000) + '\r'));
    frames.push(...decoder.push(Buffer.from('\n{}\n')));
    expect(frames).toEqual([
      { kind: 'oversize', framing: 'newline', bytes: 9000 },
      { kind: 'message', body: '{}', framing: 'newline' },
    ]);
  });

  it('finds the id at the end of a skipped reply, as the SDK writes it, at any split and without holding the reply', () => {
    const cap = 16 * 1024;
    const text = 'é'.repeat(12_000);
    const reply = JSON.stringify({ result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id: 'call-"7"' });
    const data = Buffer.from(`${reply}\r\n{"jsonrpc":"2.0","id":8,"result":{}}\n`);
    const bytes = Buffer.byteLength(reply);
    const expected = [
      { kind: 'oversize', framing: 'newline', bytes, idHint: 'call-"7"', shape: 'reply' },
      { kind: 'message', body: '{"jsonrpc":"2.0","id":8,"result":{}}', framing: 'newline' },
    ];
    for (const cut of [1, 100, 511, 512, 513, bytes - 600, bytes - 512, bytes - 20, bytes - 1, bytes, bytes + 1]) {
      expect(decodeSplit(data, [cut], new FrameDecoder({ maxMessageBytes: cap }))).toEqual(expected);
    }
    const bytewise = new FrameDecoder({ maxMessageBytes: cap });
    const frames: DecodedFrame[] = [];
    for (let i = 0; i < data.length; i++) {
      frames.push(...bytewise.push(data.subarray(i, i + 1)));
      expect(bytewise.bufferedBytes).toBeLessThanOrEqual(cap + 1);
    }
    expect(frames).toEqual(expected);
  });

  it('tells a skipped reply, a skipped request, an object of neither kind and bytes that are no object apart', () => {
    const decoder = new FrameDecoder({ maxMessageBytes: 64 });
    const pad = 'p'.repeat(2000);
    const lines = [
      JSON.stringify({ jsonrpc: '2.0', result: { pad }, id: 3 }),
      JSON.stringify({ jsonrpc: '2.0', error: { code: 1, message: pad } }),
      JSON.stringify({ params: { pad }, method: 'sampling/createMessage', jsonrpc: '2.0', id: 0 }),
      JSON.stringify({ method: 'notifications/message', params: { pad }, jsonrpc: '2.0' }),
      JSON.stringify({ jsonrpc: '2.0', pad, more: pad }),
      pad,
    ];
    const frames = decodeSplit(Buffer.from(lines.map((l) => `${l}\n`).join('')), [], decoder);
    expect(frames.map((f) => (f.kind === 'oversize' ? [f.shape, f.idHint] : f.kind))).toEqual([
      ['reply', 3],
      ['reply', undefined],
      ['call', 0],
      ['call', undefined],
      ['object', undefined],
      [undefined, undefined],
    ]);
  });

  it('reports an oversize line still open at end()', () => {
    const decoder = new FrameDecoder({ maxMessageBytes: 8 });
    expect(decoder.push(Buffer.from('x'.repeat(20)))).toEqual([]);
    expect(decoder.end()).toEqual([{ kind: 'oversize', framing: 'newline', bytes: 20 }]);
  });
});

describe('encodeFrame', () => {
  it('uses the UTF-8 byte count as Content-Length and a blank line separator', () => {
    const json = JSON.stringify({ text: 'héllo 世界 🎉' });
    const frame = encodeFrame(json, 'content-length');
    expect(frame).toBe(`Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
    expect(Buffer.byteLength(json)).toBeGreaterThan(json.length);
    expect(encodeFrame(json, 'newline')).toBe(`${json}\n`);
    expect(messages(decodeSplit(Buffer.from(frame + frame), [7]))).toEqual([
      { body: json, framing: 'content-length' },
      { body: json, framing: 'content-length' },
    ]);
  });
});

describe('extractIdHint', () => {
  it('reads the top-level id only, and gives up on truncated values', () => {
    expect(extractIdHint('{"jsonrpc":"2.0","id":12,"method":"x"')).toBe(12);
    expect(extractIdHint('{"params":{"id":99,"x":[{"id":1}]},"id":"a\\"b","method":')).toBe('a"b');
    expect(extractIdHint('{"method":"x","params":{"id":5}')).toBeUndefined();
    expect(extractIdHint('{"jsonrpc":"2.0","id":123')).toBeUndefined();
    expect(extractIdHint('{"id":null,')).toBeUndefined();
    expect(extractIdHint('{"s":"\\"id\\":3","id":4,')).toBe(4);
    expect(extractIdHint('garbage')).toBeUndefined();
  });
});

describe('extractTailIdHint', () => {
  it('reads the last top-level id backwards, ignoring nested ones and ids inside strings', () => {
    expect(extractTailIdHint('aaaa"}]},"jsonrpc":"2.0","id":42}')).toBe(42);
    expect(extractTailIdHint('aaaa"}]},"jsonrpc":"2.0","id":42}\r\n')).toBe(42);
    expect(extractTailIdHint('aa"},"id" : "a\\"b\\\\" , "jsonrpc":"2.0"}')).toBe('a"b\\');
    expect(extractTailIdHint('{"id":-1.5e3}')).toBe(-1500);
    expect(extractTailIdHint('aaa"},"params":{"id":9,"x":[{"id":1}]}}')).toBeUndefined();
    expect(extractTailIdHint('{"t":"x\\",\\"id\\":3}"}')).toBeUndefined();
    expect(extractTailIdHint('{"jsonrpc":"2.0","id":null}')).toBeUndefined();
    expect(extractTailIdHint('{"jsonrpc":"2.0","id":"x","result":{}')).toBeUndefined();
  });

  it('gives up where the tail may have been cut: a key, a value or a backslash run at its very start', () => {
    expect(extractTailIdHint('"id":5}')).toBeUndefined();
    expect(extractTailIdHint('5}')).toBeUndefined();
    expect(extractTailIdHint('aaa","id":5}')).toBe(5);
    // `\"` at the start may be an escaped quote or the end of an escaped backslash.
    expect(extractTailIdHint('\\"id":5,"a":"b"}')).toBeUndefined();
    expect(extractTailIdHint('x","id":5,"a":"b"}')).toBe(5);
  });
});

describe('frameHint', () => {
  it('takes the id from the head before the tail, and the shape from both', () => {
    expect(frameHint('{"jsonrpc":"2.0","id":1,"result":{"x":"', 'aaa"},"id":2}')).toEqual({ id: 1, shape: 'reply' });
    expect(frameHint('{"result":{"x":"', 'aaa"},"jsonrpc":"2.0","id":2}')).toEqual({ id: 2, shape: 'reply' });
    expect(frameHint('{"params":{"x":"', 'aaa"},"method":"ping","id":2}')).toEqual({ id: 2, shape: 'call' });
    expect(frameHint(' {"x":"', 'aaa"}')).toEqual({ shape: 'object' });
    expect(frameHint('[{"jsonrpc":"2.0"', '"id":1}]')).toEqual({});
  });
});
