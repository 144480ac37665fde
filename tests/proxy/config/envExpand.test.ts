import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandVars, inputVarName } from '../../../src/proxy/config/envExpand.js';

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

describe('expandVars: the variables of other clients', () => {
  const vars = { userHome: '/home/u', workspaceFolder: '/work/proj', pathSeparator: '/' };

  it('reads ${env:NAME} as ${NAME}, with a fallback too, and names a missing one as written', () => {
    expect(expandVars('${env:TOKEN}@${env:PORT}', env)).toEqual({ value: 'tok-123@8080', missing: [], errors: [] });
    expect(expandVars('${env:NOPE:-x}', env).value).toBe('x');
    expect(expandVars('${env:NOPE}', env)).toEqual({ value: '${env:NOPE}', missing: ['env:NOPE'], errors: [] });
    expect(expandVars('$${env:TOKEN}', env).value).toBe('${env:TOKEN}');
    expect(expandVars('${env:1X}', env).errors).toHaveLength(1);
  });

  it('fills ${userHome}, ${workspaceFolder}, its basename and the path separator; an environment variable of that name wins', () => {
    expect(
      expandVars('${userHome}${/}a${pathSeparator}${workspaceFolder}:${workspaceFolderBasename}', env, vars).value,
    ).toBe('/home/u/a//work/proj:proj');
    expect(expandVars('${userHome}', { userHome: '/mine' }, vars).value).toBe('/mine');
    // Without a value for it, it is an ordinary variable that is not set.
    expect(expandVars('${workspaceFolder}', {}, {}).missing).toEqual(['workspaceFolder']);
    expect(expandVars('${/}', {}, {}).value).toBe('/');
  });

  it('takes ${input:ID} from MCP_INPUT_<ID>, and says which variable to set when it is not', () => {
    expect(inputVarName('gh-token.v2')).toBe('MCP_INPUT_GH_TOKEN_V2');
    expect(expandVars('Bearer ${input:gh-token}', { MCP_INPUT_GH_TOKEN: 'ghp_x' })).toEqual({
      value: 'Bearer ghp_x',
      missing: [],
      errors: [],
    });
    const r = expandVars('${input:gh-token} ${input:gh-token}', {});
    expect(r.value).toBe('${input:gh-token} ${input:gh-token}');
    expect(r.unavailable).toEqual([
      'uses ${input:gh-token}, which VS Code asks the user for; this runtime cannot ask: set MCP_INPUT_GH_TOKEN to its value',
    ]);
    expect(expandVars('${command:pickFile}', {}).unavailable).toEqual([
      'uses ${command:...}, which only VS Code can fill in',
    ]);
    // A malformed input id is not quoted (it might be a pasted secret).
    expect(expandVars('${input:sk live SECRET}', {}).unavailable?.[0]).not.toContain('SECRET');
  });
});
