// Which resource template a URI fits (hub/uriTemplateMatch.ts): the same answers as a pattern
// with `.+` for each expression, over random small templates and URIs, and the hostile
// template of many expressions answered in one pass.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { literalParts, templateMatches } from '../../../src/proxy/hub/uriTemplateMatch.js';

/** What a template means, as a backtracking pattern: each expression one or more characters but a line break. */
function reference(template: string, uri: string): boolean {
  const pattern = template
    .split(/\{[^}]*\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('.+');
  return new RegExp(`^${pattern}$`).test(uri);
}

describe('literalParts', () => {
  it('gives the text around each expression, empty between two in a row', () => {
    expect(literalParts('file:///{path}')).toEqual(['file:///', '']);
    expect(literalParts('docs://{section}/{page}.md')).toEqual(['docs://', '/', '.md']);
    expect(literalParts('{a}{b}')).toEqual(['', '', '']);
    expect(literalParts('x://{+path}{?q,r}')).toEqual(['x://', '', '']);
  });

  it('reads an unclosed or stray brace as text', () => {
    expect(literalParts('a{b')).toEqual(['a{b']);
    expect(literalParts('a}b{c}d{e')).toEqual(['a}b', 'd{e']);
    expect(literalParts('{a{b}c')).toEqual(['', 'c']);
    expect(literalParts('no expressions')).toEqual(['no expressions']);
  });
});

describe('templateMatches', () => {
  it('matches a URI that the template could give, each expression one or more characters', () => {
    expect(templateMatches('docs://{section}/{page}.md', 'docs://guide/intro.md')).toBe(true);
    expect(templateMatches('docs://{section}/{page}.md', 'docs://a/b/c.md')).toBe(true);
    expect(templateMatches('docs://{section}/{page}.md', 'docs://guide.md')).toBe(false);
    expect(templateMatches('docs://{section}/{page}.md', 'docs:///intro.md')).toBe(false);
    expect(templateMatches('file:///{path}', 'file:///')).toBe(false);
    expect(templateMatches('aba{x}aba', 'abaxaba')).toBe(true);
    expect(templateMatches('ab{x}ba', 'aba')).toBe(false);
    expect(templateMatches('plain://uri', 'plain://uri')).toBe(true);
    expect(templateMatches('{a}', 'line\nbreak')).toBe(false);
  });

  it('answers a template of ten expressions in a row on URIs it does not fit', () => {
    const template = 'h://{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}!';
    expect(templateMatches(template, `h://${'x'.repeat(39)}`)).toBe(false);
    expect(templateMatches(template, `h://${'x'.repeat(100_000)}`)).toBe(false);
    expect(templateMatches(template, 'h://abcdefghi!')).toBe(false);
    expect(templateMatches(template, 'h://abcdefghij!')).toBe(true);
    expect(templateMatches(`{a}${'/{b}'.repeat(5000)}`, `x${'/'.repeat(9999)}`)).toBe(false);
  });

  it('gives the answer of a pattern with .+ for each expression', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '/', '.', '{', '}', 'x'), maxLength: 8 });
    const template = fc
      .array(fc.oneof(text, fc.constantFrom('{v}', '{+p}', '{?q}')), { maxLength: 6 })
      .map((parts) => parts.join(''));
    const uri = fc.string({ unit: fc.constantFrom('a', 'b', '/', '.', '{', '}', 'x', '\n'), maxLength: 14 });
    fc.assert(
      fc.property(template, uri, (t, u) => templateMatches(t, u) === reference(t, u)),
      { numRuns: 20_000 },
    );
  });
});
