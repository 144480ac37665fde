import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  globToRegExp,
  isToolAllowed,
  lookupToolTimeout,
  mergeFilters,
  toolTimeoutFor,
  type ToolFilter,
} from '../../../src/proxy/config/toolFilter.js';

describe('globToRegExp', () => {
  it('* matches any run of characters, including none', () => {
    const re = globToRegExp('read_*');
    expect(re.test('read_')).toBe(true);
    expect(re.test('read_file')).toBe(true);
    expect(re.test('read_a/b\nc')).toBe(true);
    expect(re.test('xread_file')).toBe(false);
    expect(globToRegExp('*').test('')).toBe(true);
    expect(globToRegExp('*_file').test('write_file')).toBe(true);
    expect(globToRegExp('a*b*c').test('a__b__c')).toBe(true);
    expect(globToRegExp('a*b*c').test('a__c')).toBe(false);
  });

  it('? matches exactly one character (one code point)', () => {
    const re = globToRegExp('get_?');
    expect(re.test('get_a')).toBe(true);
    expect(re.test('get_')).toBe(false);
    expect(re.test('get_ab')).toBe(false);
    expect(re.test('get_😀')).toBe(true);
  });

  it('every other character is literal, regex syntax included, and matching is whole-name and case-sensitive', () => {
    expect(globToRegExp('a.b').test('a.b')).toBe(true);
    expect(globToRegExp('a.b').test('axb')).toBe(false);
    const special = 'x(a+b)[c]{2}|^$\\/-';
    expect(globToRegExp(special).test(special)).toBe(true);
    expect(globToRegExp(special).test('x')).toBe(false);
    expect(globToRegExp('Read').test('read')).toBe(false);
    expect(globToRegExp('read').test('read_file')).toBe(false);
    expect(globToRegExp('').test('')).toBe(true);
    expect(globToRegExp('').test('a')).toBe(false);
  });
});

describe('isToolAllowed', () => {
  it('allows everything with an empty filter', () => {
    expect(isToolAllowed({}, 'anything')).toBe(true);
  });

  it('deny globs and exact names block', () => {
    const f: ToolFilter = { deny: ['delete_*'], denyExact: ['rm'] };
    expect(isToolAllowed(f, 'delete_file')).toBe(false);
    expect(isToolAllowed(f, 'rm')).toBe(false);
    expect(isToolAllowed(f, 'rmdir')).toBe(true);
    expect(isToolAllowed(f, 'read_file')).toBe(true);
  });

  it('allow lists restrict when present; glob and exact lists are united', () => {
    const f: ToolFilter = { allow: ['read_*'], allowExact: ['list_directory'] };
    expect(isToolAllowed(f, 'read_file')).toBe(true);
    expect(isToolAllowed(f, 'list_directory')).toBe(true);
    expect(isToolAllowed(f, 'list_directory_x')).toBe(false);
    expect(isToolAllowed(f, 'write_file')).toBe(false);
    expect(isToolAllowed({ allowExact: ['a'] }, 'b')).toBe(false);
    // Present but empty: nothing passes.
    expect(isToolAllowed({ allow: [] }, 'read_file')).toBe(false);
  });

  it('deny wins over allow', () => {
    expect(isToolAllowed({ allow: ['*'], deny: ['secret_*'] }, 'secret_dump')).toBe(false);
    expect(isToolAllowed({ allowExact: ['x'], denyExact: ['x'] }, 'x')).toBe(false);
    expect(isToolAllowed({ allowExact: ['x'], deny: ['?'] }, 'x')).toBe(false);
  });
});

describe('mergeFilters', () => {
  it('unites deny lists and narrows allow lists', () => {
    const entry: ToolFilter = { allow: ['read_*', 'list_*'], deny: ['read_secret'] };
    const cli: ToolFilter = { allow: ['*_file'], denyExact: ['list_file'] };
    const m = mergeFilters(entry, cli);
    expect(isToolAllowed(m, 'read_file')).toBe(true);
    expect(isToolAllowed(m, 'read_dir')).toBe(false); // entry allows, CLI does not
    expect(isToolAllowed(m, 'write_file')).toBe(false); // CLI allows, entry does not
    expect(isToolAllowed(m, 'list_file')).toBe(false); // CLI denies
    expect(isToolAllowed(m, 'read_secret')).toBe(false); // entry denies
  });

  it('takes the only allow list when one side has none, and does not mutate its inputs', () => {
    const a: ToolFilter = { deny: ['x'] };
    const b: ToolFilter = { allowExact: ['y'] };
    const m = mergeFilters(a, b);
    expect(m).toEqual({ deny: ['x'], allowExact: ['y'] });
    m.deny!.push('z');
    expect(a).toEqual({ deny: ['x'] });
    expect(mergeFilters({}, {})).toEqual({});
  });

  it('allows a name exactly when both filters allow it (property)', () => {
    const name = fc.string({ unit: fc.constantFrom('a', 'b', '_'), maxLength: 4 });
    const glob = fc.string({ unit: fc.constantFrom('a', 'b', '_', '*', '?'), maxLength: 4 });
    const list = (arb: fc.Arbitrary<string>) => fc.option(fc.array(arb, { maxLength: 3 }), { nil: undefined });
    const filter: fc.Arbitrary<ToolFilter> = fc
      .record({ allow: list(glob), deny: list(glob), allowExact: list(name), denyExact: list(name) })
      .map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)));
    fc.assert(
      fc.property(filter, filter, filter, name, (a, b, c, n) => {
        const expected = isToolAllowed(a, n) && isToolAllowed(b, n) && isToolAllowed(c, n);
        expect(isToolAllowed(mergeFilters(mergeFilters(a, b), c), n)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('toolTimeoutFor', () => {
  const entry = { timeoutMs: 60_000, toolTimeouts: { 'search_*': 5_000, search_code: 7_000, '*': 9_000 } };

  it('prefers an exact key, then the most literal glob', () => {
    expect(toolTimeoutFor('search_code', entry, {})).toBe(7_000);
    expect(toolTimeoutFor('search_issues', entry, {})).toBe(5_000);
    expect(toolTimeoutFor('other', entry, {})).toBe(9_000);
  });

  it('breaks ties between equally literal globs by key order', () => {
    expect(lookupToolTimeout('ab', { 'a*': 1, '*b': 2 })).toBe(1);
    expect(lookupToolTimeout('ab', { '*b': 2, 'a*': 1 })).toBe(2);
    expect(lookupToolTimeout('abc', { 'a?c': 3, 'a*': 1 })).toBe(3);
  });

  it('per-entry wins over global, global over the entry default', () => {
    const global = { search_issues: 1_000, 'build_*': 300_000 };
    // A loose entry glob still beats an exact global key.
    expect(toolTimeoutFor('search_issues', entry, global)).toBe(5_000);
    const plain = { timeoutMs: 60_000, toolTimeouts: {} };
    expect(toolTimeoutFor('build_all', plain, global)).toBe(300_000);
    expect(toolTimeoutFor('search_issues', plain, global)).toBe(1_000);
    expect(toolTimeoutFor('other', plain, global)).toBe(60_000);
    expect(toolTimeoutFor('other', { timeoutMs: 1_234, toolTimeouts: {} }, {})).toBe(1_234);
  });

  it('does not treat inherited object keys as tool names', () => {
    expect(toolTimeoutFor('constructor', { timeoutMs: 10, toolTimeouts: {} }, {})).toBe(10);
    expect(toolTimeoutFor('toString', { timeoutMs: 10, toolTimeouts: {} }, {})).toBe(10);
  });
});
