// configDiff: which servers a config edit adds, removes, changes or leaves alone, compared
// after normalisation, and which top-level options moved.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/proxy/config/config.js';
import { describeDiff, diffConfigs, isEmptyDiff } from '../../../src/proxy/config/configDiff.js';

const cfg = (raw: unknown) => parseConfig(raw, { env: { TOKEN: 't0' } });

describe('diffConfigs', () => {
  const base = {
    mcpServers: {
      a: { command: 'node', args: ['a.js'], env: { K: 'v' } },
      b: { url: 'http://127.0.0.1:1/mcp', headers: { X: '1' } },
      c: { command: 'node', args: ['c.js'] },
    },
  };

  it('sees nothing in a rewrite that normalises the same (key order, defaults spelt out)', () => {
    const same = {
      mcpServers: {
        c: { args: ['c.js'], command: 'node', disabled: false },
        b: { headers: { X: '1' }, url: 'http://127.0.0.1:1/mcp' },
        a: { env: { K: 'v' }, args: ['a.js'], command: 'node' },
      },
      toolNaming: 'prefixed',
    };
    const d = diffConfigs(cfg(base), cfg(same));
    expect(isEmptyDiff(d)).toBe(true);
    expect(d.unchanged.sort()).toEqual(['a', 'b', 'c']);
    expect(describeDiff(d)).toBe('nothing changed');
  });

  it('names added, removed and changed servers, and changed options only', () => {
    const next = {
      toolNaming: 'original',
      toolTimeouts: { 'slow*': 1000 },
      mcpServers: {
        a: { command: 'node', args: ['a.js'], env: { K: 'other' } },
        b: base.mcpServers.b,
        d: { command: 'node', args: ['d.js'] },
      },
    };
    const d = diffConfigs(cfg(base), cfg(next));
    expect(d.added.map((s) => s.id)).toEqual(['d']);
    expect(d.removed).toEqual(['c']);
    expect(d.changed.map((s) => s.id)).toEqual(['a']);
    expect(d.unchanged).toEqual(['b']);
    expect(d.options).toEqual({ toolNaming: 'original', toolTimeouts: { 'slow*': 1000 } });
    // Ids only: the changed env value never shows.
    expect(describeDiff(d)).toBe('added d; removed c; changed a; options toolNaming, toolTimeouts');
    expect(describeDiff(d)).not.toContain('other');
  });

  it('counts a change of what a server is given: disabled, a filter, a header, a top-level default merged into it', () => {
    const changedBy = (edit: (raw: typeof base) => unknown) =>
      diffConfigs(cfg(base), cfg(edit(structuredClone(base)))).changed.map((s) => s.id);
    expect(changedBy((r) => ({ mcpServers: { ...r.mcpServers, c: { ...r.mcpServers.c, disabled: true } } }))).toEqual([
      'c',
    ]);
    expect(
      changedBy((r) => ({ mcpServers: { ...r.mcpServers, a: { ...r.mcpServers.a, allowTools: ['x'] } } })),
    ).toEqual(['a']);
    expect(
      changedBy((r) => ({ mcpServers: { ...r.mcpServers, b: { ...r.mcpServers.b, headers: { X: '2' } } } })),
    ).toEqual(['b']);
    expect(
      changedBy((r) => ({ mcpServers: { ...r.mcpServers, b: { ...r.mcpServers.b, authToken: '${TOKEN}' } } })),
    ).toEqual(['b']);
    // A top-level clientCapabilities default is merged into every entry: all three change.
    expect(changedBy((r) => ({ ...r, clientCapabilities: { sampling: false } })).sort()).toEqual(['a', 'b', 'c']);
    expect(diffConfigs(cfg(base), cfg({ ...base, readyTimeoutMs: 5000 })).options).toEqual({ readyTimeoutMs: 5000 });
  });

  it("takes the tool exposure keys, an entry's expose and description included, as options: no server changes", () => {
    const edited = {
      toolExposure: 'search',
      toolBudgetTokens: 1000,
      mcpServers: {
        ...base.mcpServers,
        a: { ...base.mcpServers.a, expose: 'always' },
        c: { ...base.mcpServers.c, description: 'C.' },
      },
    };
    const d = diffConfigs(cfg(base), cfg(edited));
    expect(d.changed).toEqual([]);
    expect(d.unchanged.sort()).toEqual(['a', 'b', 'c']);
    expect(d.options).toEqual({
      toolExposure: 'search',
      toolBudgetTokens: 1000,
      exposeAlways: ['a'],
      serverDescriptions: { c: 'C.' },
    });
    expect(isEmptyDiff(diffConfigs(cfg(edited), cfg(structuredClone(edited))))).toBe(true);
  });
});
