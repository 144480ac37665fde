import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandVars } from '../../src/proxy/config/envExpand.js';

const env = { HOME: '/home/u', EMPTY: '', TOKEN: 'tok-123', PORT: '8080' };

describe('expandVars', () => {
  it('leaves strings without references unchanged', () => {
    expect(expandVars('plain text', env)).toEqual({ value: 'plain text', missing: [], errors: [] });
    expect(expandVars('', env)).toEqual({ value: '', missing: [], errors: [] });
  });

  it('expands ${VAR}, several per string, and set-but-empty to empty', () => {
    expect(expandVars('${HOME}/data', env).value).toBe('/home/u/data');
    expect(expandVars('http://h:${PORT}/${TOKEN}', env).value).toBe('http://h:8080/tok-123');
    expect(expandVars('[${EMPTY}]', env)).toEqual({ value: '[]', missing: [], errors: [] });
  });

  it('reports missing variables by name, once each, keeping the reference verbatim', () => {
    const r = expandVars('${NOPE}-${NOPE}-${ALSO_NOPE}', env);
    expect(r.missing).toEqual(['NOPE', 'ALSO_NOPE']);
    expect(r.value).toBe('${NOPE}-${NOPE}-${ALSO_NOPE}');
    expect(r.errors).toEqual([]);
  });

  it('uses ${VAR:-default} when unset or empty, the value otherwise', () => {
    expect(expandVars('${NOPE:-fallback}', env)).toEqual({ value: 'fallback', missing: [], errors: [] });
    expect(expandVars('${EMPTY:-fallback}', env).value).toBe('fallback');
    expect(expandVars('${PORT:-1}', env).value).toBe('8080');
    expect(expandVars('${NOPE:-}', env).value).toBe('');
    // The default runs to the first `}` and may hold `:`, `-`, `/` and `$`.
    expect(expandVars('${NOPE:-http://x:1/a-b}/mcp', env).value).toBe('http://x:1/a-b/mcp');
  });

  it('treats $$ as an escaped $, so $${VAR} is literal text', () => {
    expect(expandVars('$${HOME}', env)).toEqual({ value: '${HOME}', missing: [], errors: [] });
    expect(expandVars('$${NOPE}', env)).toEqual({ value: '${NOPE}', missing: [], errors: [] });
    expect(expandVars('a$$b', env).value).toBe('a$b');
    expect(expandVars('$$${PORT}', env).value).toBe('$8080');
    expect(expandVars('$$$${PORT}', env).value).toBe('$${PORT}');
  });

  it('keeps any other $ literal: $VAR is not expanded', () => {
    expect(expandVars('$HOME and cost $5 and end$', env)).toEqual({
      value: '$HOME and cost $5 and end$',
      missing: [],
      errors: [],
    });
    expect(expandVars('^a.*$', env).value).toBe('^a.*$');
  });

  it('reports syntax errors without quoting the text', () => {
    const unterminated = expandVars('abc ${sk-live-SECRET', env);
    expect(unterminated.errors).toHaveLength(1);
    expect(unterminated.errors[0]).toContain('unterminated');
    expect(unterminated.errors[0]).not.toContain('SECRET');

    for (const bad of ['${sk-live-SECRET}', '${1ABC}', '${}', '${A B}', '${A:=x}']) {
      const r = expandVars(`x ${bad} y`, env);
      expect(r.errors, bad).toHaveLength(1);
      expect(r.errors[0]).toContain('invalid variable reference at character 3');
      expect(r.errors[0]).not.toContain('SECRET');
      expect(r.missing).toEqual([]);
    }
  });

  it('round-trips any text escaped with $$ (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('$', '{', '}', 'A', '_', ':', '-', 'x') }), (s) => {
        const r = expandVars(
          s.replaceAll('$', () => '$$'),
          {},
        );
        expect(r).toEqual({ value: s, missing: [], errors: [] });
      }),
    );
  });

  it('never changes text without a $ (property)', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('$')),
        (s) => {
          expect(expandVars(s, env)).toEqual({ value: s, missing: [], errors: [] });
        },
      ),
    );
  });
});
