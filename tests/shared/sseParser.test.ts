// The panel's SSE parser (pure, runs in Node too): line ends, comments, multi-line data,
// and any chunking of the same bytes giving the same events.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SseParser, type SseEvent } from '../../src/shared/sseParser.js';

function parse(chunks: string[]): SseEvent[] {
  const out: SseEvent[] = [];
  const p = new SseParser((e) => out.push(e));
  for (const c of chunks) p.push(c);
  return out;
}

describe('SseParser', () => {
  it('parses named events, skips comments and joins multi-line data', () => {
    const text = ': keep-alive\n\nevent: status\ndata: {"a":1}\n\ndata: line1\ndata:line2\nid: 7\n\n: bye\n';
    expect(parse([text])).toEqual([
      { event: 'status', data: '{"a":1}' },
      { event: 'message', data: 'line1\nline2', id: '7' },
    ]);
  });

  it('accepts CRLF and CR line ends, a BOM, and ignores retry and unknown fields', () => {
    expect(parse(['\ufeffevent: status\r\ndata: x\r\nretry: 10\r\nfoo: bar\r\n\r\nevent: s2\rdata: y\r\r'])).toEqual([
      { event: 'status', data: 'x' },
      { event: 's2', data: 'y' },
    ]);
  });

  it('does not dispatch an event that is not terminated by a blank line, or one without data', () => {
    expect(parse(['event: status\n\nevent: status\ndata: partial'])).toEqual([]);
  });

  it('gives the same events however the stream is split (CRLF split across chunks included)', () => {
    const line = fc.constantFrom('\n', '\r\n', '\r');
    const payload = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ':', '{', '"', 'é', '\u2713'), maxLength: 12 });
    const event = fc.record({
      name: fc.constantFrom('status', 'other'),
      data: fc.array(payload, { minLength: 1, maxLength: 3 }),
      eol: line,
      comment: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 10 }), (events, cuts) => {
        const text = events
          .map(
            (e) =>
              `${e.comment ? `: ping${e.eol}` : ''}event: ${e.name}${e.eol}${e.data.map((d) => `data: ${d}${e.eol}`).join('')}${e.eol}`,
          )
          .join('');
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let last = 0;
        for (const p of points) {
          chunks.push(text.slice(last, p));
          last = p;
        }
        chunks.push(text.slice(last));
        const expected = events.map((e) => ({ event: e.name, data: e.data.join('\n') }));
        expect(parse(chunks)).toEqual(expected);
        expect(parse([text])).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
