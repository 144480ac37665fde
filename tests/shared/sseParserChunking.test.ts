// SseParser: events split at every possible chunk boundary parse the same as whole.
import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from '../../src/shared/sseParser.js';

function parse(chunks: string[]): SseEvent[] {
  const out: SseEvent[] = [];
  const p = new SseParser((e) => out.push(e));
  for (const c of chunks) p.push(c);
  p.end();
  return out;
}

const STREAM =
  ': keep-alive\r\n\r\n' +
  'event: message\r\nid: 7\r\ndata: {"a":1}\r\n\r\n' +
  'data:{"b":\ndata: 2}\n\n' +
  'event: other\rdata: x\r\r' +
  'data: é ✓\n\n' +
  'data: unterminated';

describe('SseParser, split at every chunk boundary', () => {
  it('joins data lines, keeps event and id, accepts \\r\\n, \\n and \\r, drops an unterminated event', () => {
    const whole = parse([STREAM]);
    expect(whole).toEqual([
      { event: 'message', data: '{"a":1}', id: '7' },
      { event: 'message', data: '{"b":\n2}', id: '7' },
      { event: 'other', data: 'x', id: '7' },
      { event: 'message', data: 'é ✓', id: '7' },
    ]);
    for (let i = 1; i < STREAM.length; i++) {
      expect(parse([STREAM.slice(0, i), STREAM.slice(i)])).toEqual(whole);
    }
    expect(parse([...STREAM])).toEqual(whole);
  });
});
