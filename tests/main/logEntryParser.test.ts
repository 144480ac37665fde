// The byte -> line -> entry pipeline, against the proxy logger's own formatEntry.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  EntryAssembler,
  LineDecoder,
  MAX_LINE_CHARS,
  parseLogLine,
  type LogEntry,
} from '../../src/main/logs/logEntryParser.js';
import { formatEntry, formatTimestamp, LOG_LEVELS } from '../../src/proxy/common/logger.js';

describe('parseLogLine', () => {
  it('reads the proxy header', () => {
    const p = parseLogLine('[2026-03-04 05:06:07.089] [warn] [server:fs] disk [full] now')!;
    expect(p).toMatchObject({
      tsText: '2026-03-04 05:06:07.089',
      level: 'warn',
      tag: 'server:fs',
      message: 'disk [full] now',
    });
    expect(p.ts!.getTime()).toBe(new Date(2026, 2, 4, 5, 6, 7, 89).getTime());
  });

  it('accepts a missing tag or message, maps unknown level words, rejects non-headers', () => {
    const untagged = parseLogLine('[2026-03-04 05:06:07.089] [info] plain')!;
    expect([untagged.message, untagged.tag]).toEqual(['plain', undefined]);
    expect(parseLogLine('[2026-03-04 05:06:07.089] [error] [t] ')).toMatchObject({
      level: 'error',
      tag: 't',
      message: '',
    });
    expect(parseLogLine('[2026-03-04 05:06:07.089] [WARNING] [t] x')!.level).toBe('warn');
    expect(parseLogLine('[2026-03-04 05:06:07.089] [trace] [t] x')!.level).toBe('debug');
    expect(parseLogLine('[2026-03-04 05:06:07.089] [weird] [t] x')!.level).toBe('info');
    expect(parseLogLine('    continuation')).toBeUndefined();
    expect(parseLogLine('[not a date] [info] x')).toBeUndefined();
    expect(parseLogLine('2026-03-04 05:06:07.089 [info] x')).toBeUndefined();
  });

  it('keeps the text but no Date for an impossible timestamp', () => {
    const p = parseLogLine('[2026-02-30 05:06:07.089] [info] [t] x')!;
    expect(p.ts).toBeUndefined();
    expect(p.tsText).toBe('2026-02-30 05:06:07.089');
    // The second's cache must not leak a valid Date to the next, different second.
    expect(parseLogLine('[2026-02-28 05:06:07.089] [info] [t] x')!.ts).toBeInstanceOf(Date);
    expect(parseLogLine('[2026-02-28 25:06:07.089] [info] [t] x')!.ts).toBeUndefined();
  });
});

describe('LineDecoder', () => {
  it('keeps a partial line and a split UTF-8 sequence until completed', () => {
    const d = new LineDecoder();
    const bytes = Buffer.from('a😀\r\nb中');
    const out: string[] = [];
    for (const b of bytes) out.push(...d.push(Uint8Array.of(b)));
    expect(out).toEqual(['a😀']);
    expect(d.hasPartial).toBe(true);
    expect(d.end()).toBe('b中');
    expect(d.hasPartial).toBe(false);
  });

  it('cuts a line that never ends at MAX_LINE_CHARS', () => {
    const d = new LineDecoder();
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const out: string[] = [];
    for (let i = 0; i < 20; i++) out.push(...d.push(chunk));
    expect(out.length).toBe(1);
    expect(out[0]!.length).toBeGreaterThanOrEqual(MAX_LINE_CHARS);
  });
});

describe('EntryAssembler', () => {
  it('caps the lines folded into one entry', () => {
    const got: LogEntry[] = [];
    const a = new EntryAssembler((e) => got.push(e), 3);
    a.push('[2026-03-04 05:06:07.089] [info] [t] head');
    for (let i = 0; i < 4; i++) a.push(`junk ${i}`);
    a.flush();
    expect(got.map((e) => e.message)).toEqual(['head\njunk 0\njunk 1', 'junk 2', 'junk 3']);
  });

  it('round-trips any sequence of formatEntry output, cut into arbitrary chunks', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '[', ']', '\n', 'é', '😀', '中', '\t') });
    const entry = fc.record({
      level: fc.constantFrom(...LOG_LEVELS),
      tag: fc.stringMatching(/^[A-Za-z0-9_:-]{1,12}$/),
      message: text,
      date: fc.date({ min: new Date(2000, 0, 1), max: new Date(2099, 0, 1), noInvalidDate: true }),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 10 }), (entries, cuts) => {
        const bytes = Buffer.from(entries.map((e) => formatEntry(e.level, e.tag, e.message, e.date)).join(''));
        const got: LogEntry[] = [];
        const lines = new LineDecoder();
        const assembler = new EntryAssembler((e) => got.push(e));
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        let from = 0;
        for (const to of [...points, bytes.length]) {
          for (const l of lines.push(bytes.subarray(from, to))) assembler.push(l);
          from = to;
        }
        expect(lines.end()).toBeUndefined();
        assembler.flush();
        expect(got.map((e) => [e.level, e.tag, e.message, e.tsText])).toEqual(
          entries.map((e) => [e.level, e.tag, e.message.replace(/\n$/, ''), formatTimestamp(e.date)]),
        );
        for (const e of got) expect(formatTimestamp(e.ts!)).toBe(e.tsText);
      }),
      { numRuns: 300 },
    );
  });
});
