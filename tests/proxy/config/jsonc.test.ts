import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsoncToJson } from '../../../src/proxy/config/jsonc.js';

const parse = (text: string) => JSON.parse(jsoncToJson(text)) as unknown;

describe('jsoncToJson', () => {
  it('drops line and block comments and trailing commas, in objects and arrays', () => {
    expect(parse('// head\n{ /* a */ "a": [1, 2,], "b": {"c": 3,}, // tail\n}')).toEqual({ a: [1, 2], b: { c: 3 } });
    expect(parse('{"a": 1 /* unclosed at the end is blank too */}')).toEqual({ a: 1 });
  });

  it('leaves strings alone: comment markers, commas before brackets, escaped quotes', () => {
    expect(parse('{"u": "http://h/a", "s": "a,}b", "q": "say \\"//hi\\",]", "x": "/* no */",}')).toEqual({
      u: 'http://h/a',
      s: 'a,}b',
      q: 'say "//hi",]',
      x: '/* no */',
    });
  });

  it('keeps the length and the line breaks, so an error position is the same in the user file', () => {
    const text = '{\r\n  // note\r\n  "a": 1, /* x\n y */ "b": [2,],\n}';
    const out = jsoncToJson(text);
    expect(out).toHaveLength(text.length);
    expect(out.split('\n').map((l) => l.length)).toEqual(text.split('\n').map((l) => l.length));
  });

  it('does not make invalid JSON valid: a double comma, a leading comma', () => {
    expect(() => parse('[1,,]')).toThrow();
    expect(() => parse('{,"a": 1}')).toThrow();
  });

  it('changes nothing in plain JSON (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v, null, 1);
        expect(jsoncToJson(text)).toBe(text);
      }),
    );
  });
});
