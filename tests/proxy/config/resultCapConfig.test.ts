// The `maxResultBytes` setting: top level and per server, `"off"` or a number of bytes of at
// least 1024, a bad value named with its field (never a stack trace); which cap a server's
// results get; and how a reload sees a change of it (configDiff.ts).
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, readConfig } from '../../../src/proxy/config/config.js';
import { diffConfigs } from '../../../src/proxy/config/configDiff.js';
import { resultCapOf, resultCapOn } from '../../../src/proxy/hub/economy/resultCap.js';

const entry = { command: 'node' };
const parse = (raw: Record<string, unknown>) => parseConfig({ mcpServers: { a: entry }, ...raw }, { env: {} });

function issues(raw: unknown): string[] {
  try {
    parseConfig(raw, { env: {} });
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  return [];
}

describe('maxResultBytes in the config', () => {
  it('takes "off" or a whole number of bytes of at least 1024, at the top level and per server', () => {
    expect(parse({ maxResultBytes: 'off' }).maxResultBytes).toBe('off');
    expect(parse({ maxResultBytes: 1024 }).maxResultBytes).toBe(1024);
    expect(parse({}).maxResultBytes).toBeUndefined();
    // The default spelt out is normalised away, as if not written.
    expect(parse({ maxResultBytes: 100_000 }).maxResultBytes).toBeUndefined();
    const c = parseConfig(
      { mcpServers: { a: { ...entry, maxResultBytes: 'off' }, b: { ...entry, maxResultBytes: 5000 } } },
      { env: {} },
    );
    expect(c.servers.map((s) => s.maxResultBytes)).toEqual(['off', 5000]);
  });

  it('refuses anything else, naming the field', () => {
    const must = 'must be "off" or a whole number of bytes, at least 1024';
    for (const bad of [0, 1023, -5, 1.5, '100000', 'on', null, true, 2 ** 53]) {
      expect(issues({ mcpServers: { a: entry }, maxResultBytes: bad })).toEqual([`maxResultBytes ${must}`]);
      expect(issues({ mcpServers: { a: { ...entry, maxResultBytes: bad } } })).toEqual([
        `server "a": maxResultBytes ${must}`,
      ]);
    }
  });

  it('a bad top-level value makes the config unusable; a bad entry value fails only its server', () => {
    expect(() => readConfig({ mcpServers: { a: entry }, maxResultBytes: 'huge' }, { env: {} })).toThrow(ConfigError);
    const c = readConfig({ mcpServers: { a: { ...entry, maxResultBytes: 12 }, b: entry } }, { env: {} });
    expect(c.servers.map((s) => s.id)).toEqual(['b']);
    expect(c.invalid?.map((e) => e.reason)).toEqual([
      'invalid config entry: maxResultBytes must be "off" or a whole number of bytes, at least 1024',
    ]);
  });
});

describe('the cap a server gets', () => {
  it('is its own value, else the top level, else 100,000 bytes; "off" is none', () => {
    const c = parseConfig(
      { maxResultBytes: 4096, mcpServers: { own: { ...entry, maxResultBytes: 'off' }, top: entry } },
      { env: {} },
    );
    expect(c.servers.map((s) => resultCapOf(c, s))).toEqual([undefined, 4096]);
    const d = parse({});
    expect(resultCapOf(d, d.servers[0]!)).toBe(100_000);
    const off = parse({ maxResultBytes: 'off' });
    expect(resultCapOf(off, off.servers[0]!)).toBeUndefined();
  });

  it('is on for an aggregate while any server may be cut', () => {
    expect(resultCapOn(parse({}))).toBe(true);
    expect(resultCapOn(parse({ maxResultBytes: 'off' }))).toBe(false);
    const one = parseConfig(
      { maxResultBytes: 'off', mcpServers: { a: entry, b: { ...entry, maxResultBytes: 2048 } } },
      { env: {} },
    );
    expect(resultCapOn(one)).toBe(true);
  });
});

describe('a reload of maxResultBytes', () => {
  it('is a top-level option change, restarting no server; the default spelt out is no change', () => {
    expect(diffConfigs(parse({}), parse({ maxResultBytes: 'off' }))).toMatchObject({
      options: { maxResultBytes: 'off' },
      changed: [],
      unchanged: ['a'],
    });
    const back = diffConfigs(parse({ maxResultBytes: 2048 }), parse({}));
    expect('maxResultBytes' in back.options).toBe(true);
    expect(back.options.maxResultBytes).toBeUndefined();
    expect(diffConfigs(parse({}), parse({ maxResultBytes: 100_000 })).options).toEqual({});
  });

  it("is an entry change for a server's own value", () => {
    const before = parse({});
    const after = parseConfig({ mcpServers: { a: { ...entry, maxResultBytes: 'off' } } }, { env: {} });
    expect(diffConfigs(before, after).changed.map((s) => s.id)).toEqual(['a']);
  });
});
