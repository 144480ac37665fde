// Namespaced tool names: sanitised, at most 64 characters, stable, and reversible via the table.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_NAME_LENGTH, NameTable, namespacedName } from '../../../src/proxy/hub/naming.js';

describe('namespacedName', () => {
  it('joins server id and name with a double underscore', () => {
    expect(namespacedName('fs', 'read_file')).toBe('fs__read_file');
    expect(namespacedName('everything', 'get-sum')).toBe('everything__get-sum');
  });

  it('sanitises to [A-Za-z0-9_-] and keeps sanitised names apart with a hash', () => {
    const a = namespacedName('my.server', 'do it');
    const b = namespacedName('my_server', 'do_it');
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(b).toBe('my_server__do_it');
    expect(a).not.toBe(b);
  });

  it('shortens long names to 64 characters with a stable suffix', () => {
    const long = 'x'.repeat(80);
    const n = namespacedName('server', long);
    expect(n.length).toBe(MAX_NAME_LENGTH);
    expect(namespacedName('server', long)).toBe(n);
    expect(namespacedName('server', `${long}y`)).not.toBe(n);
  });

  it('always yields a valid, unique name (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.tuple(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,20}$/), fc.string({ minLength: 1, maxLength: 90 })),
          {
            selector: ([s, n]) => `${s}\0${n}`,
            maxLength: 30,
          },
        ),
        (pairs) => {
          const names = pairs.map(([s, n]) => namespacedName(s, n));
          for (const n of names) {
            expect(n.length).toBeLessThanOrEqual(MAX_NAME_LENGTH);
            expect(n).toMatch(/^[A-Za-z0-9_-]+$/);
          }
          expect(new Set(names).size).toBe(names.length);
        },
      ),
    );
  });
});

describe('NameTable', () => {
  const items = [
    { serverId: 'a', name: 'echo' },
    { serverId: 'b', name: 'echo' },
    { serverId: 'a', name: 'only-a' },
  ];

  it('maps both ways in prefixed mode', () => {
    const t = new NameTable(items, 'prefixed');
    expect(t.exposedName('b', 'echo')).toBe('b__echo');
    expect(t.resolve('b__echo')).toEqual({ serverId: 'b', name: 'echo' });
    expect(t.resolve('echo')).toBeUndefined();
  });

  it('keeps names apart when a server id contains the separator', () => {
    const t = new NameTable(
      [
        { serverId: 'a', name: 'b__c' },
        { serverId: 'a__b', name: 'c' },
      ],
      'prefixed',
    );
    const x = t.exposedName('a', 'b__c')!;
    const y = t.exposedName('a__b', 'c')!;
    expect(x).not.toBe(y);
    expect(t.resolve(x)).toEqual({ serverId: 'a', name: 'b__c' });
    expect(t.resolve(y)).toEqual({ serverId: 'a__b', name: 'c' });
  });

  it('gives a name readable with two configured prefixes to the longer one, whichever servers list their tools', () => {
    const ids = ['a', 'a__b'];
    const fromA = { serverId: 'a', name: 'b__c' };
    const fromAB = { serverId: 'a__b', name: 'c' };
    const tables = [
      new NameTable([fromA, fromAB], 'prefixed', ids),
      new NameTable([fromAB, fromA], 'prefixed', ids),
      new NameTable([fromA], 'prefixed', ids),
      new NameTable([fromAB], 'prefixed', ids),
    ];
    const x = tables[0].exposedName('a', 'b__c')!;
    expect(x).toMatch(/^a__b__c_[0-9a-f]{8}$/);
    for (const t of tables.slice(0, 3)) {
      expect(t.exposedName('a', 'b__c')).toBe(x);
      expect(t.resolve(x)).toEqual(fromA);
    }
    for (const t of [tables[0], tables[1], tables[3]]) {
      expect(t.exposedName('a__b', 'c')).toBe('a__b__c');
      expect(t.resolve('a__b__c')).toEqual(fromAB);
    }
    expect(tables[2].resolve('a__b__c')).toBeUndefined();
    // A name no longer configured prefix can read stays plain.
    expect(new NameTable([{ serverId: 'a', name: 'd' }], 'prefixed', ids).exposedName('a', 'd')).toBe('a__d');
  });

  it('keeps unique names raw in original mode and prefixes collisions', () => {
    const t = new NameTable(items, 'original');
    expect(t.exposedName('a', 'only-a')).toBe('only-a');
    expect(t.exposedName('a', 'echo')).toBe('a__echo');
    expect(t.resolve('only-a')).toEqual({ serverId: 'a', name: 'only-a' });
  });
});
