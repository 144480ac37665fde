import { describe, expect, it } from 'vitest';
import { applyCliToolFilters, cliToolFilterFor } from '../../../src/proxy/cli/cliToolFilter.js';
import { parseConfig } from '../../../src/proxy/config/config.js';
import { isToolAllowed } from '../../../src/proxy/config/toolFilter.js';

describe('cliToolFilterFor', () => {
  const ids = ['a', 'a__b', 'c'];

  it('is undefined when no list was given', () => {
    expect(cliToolFilterFor('a', ids)).toBeUndefined();
  });

  it('gives an exposed name to its server only, with the longest matching id', () => {
    expect(cliToolFilterFor('a', ids, undefined, ['a__x', 'a__b__y', 'c__z', 'plain'])).toEqual({
      denyExact: ['x', 'plain'],
    });
    expect(cliToolFilterFor('a__b', ids, undefined, ['a__x', 'a__b__y', 'c__z', 'plain'])).toEqual({
      denyExact: ['y', 'plain'],
    });
    expect(cliToolFilterFor('c', ids, undefined, ['a__x', 'a__b__y', 'c__z', 'plain'])).toEqual({
      denyExact: ['z', 'plain'],
    });
  });

  it('keeps a bare prefix ("a__") as a plain name, and restricts a server the allow list does not name', () => {
    expect(cliToolFilterFor('a', ids, ['a__'])).toEqual({ allowExact: ['a__'] });
    const f = cliToolFilterFor('c', ids, ['a__x'])!;
    expect(f).toEqual({ allowExact: [] });
    expect(isToolAllowed(f, 'x')).toBe(false);
  });
});

describe('applyCliToolFilters', () => {
  it('narrows each entry filter and leaves the config alone without lists', () => {
    const config = parseConfig({ mcpServers: { s: { command: 'x', tools: { allow: ['e*'] } }, t: { command: 'y' } } });
    expect(applyCliToolFilters(config)).toBe(config);
    const out = applyCliToolFilters(config, ['echo', 't__add'], ['s__eval']);
    const [s, t] = out.servers;
    expect(['echo', 'eval', 'add', 'else'].filter((n) => isToolAllowed(s.toolFilter, n))).toEqual(['echo']);
    expect(['echo', 'eval', 'add', 'else'].filter((n) => isToolAllowed(t.toolFilter, n))).toEqual(['echo', 'add']);
  });
});
