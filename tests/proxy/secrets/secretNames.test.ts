// The names the runtime gives an entry's secrets (secretStore.ts `secretNameFor`): distinct
// for distinct (server id, field, key), whatever dots the ids hold, whatever characters or
// length the keys have; never one of the ambiguous names earlier versions gave; each says
// whose it is; and the old names are recognised where an entry refers to its own.
import { describe, expect, it } from 'vitest';
import {
  SECRET_NAME_RE,
  secretNameFor,
  secretNameOwner,
  secretRefName,
  type SecretField,
} from '../../../src/proxy/secrets/secretStore.js';
import { legacySecretName, movableRefs } from '../../../src/proxy/secrets/secretRenames.js';

const IDS = ['gh', 'gh.header', 'gh.env', 'a', 'a.b', 'a..b', 'a.b.c', 'a_b', 'a-b', 'header', 'x'.repeat(64)];
const KEYS = [
  'Authorization',
  'header.Authorization',
  'env.X',
  'authToken',
  'A_B',
  'A:B',
  'A B',
  'A/B',
  'b.c',
  'c',
  'Ünïcode',
  'K'.repeat(56),
  'K'.repeat(57),
  'K'.repeat(200),
  `${'K'.repeat(199)}L`,
];
const tuples: [string, SecretField, string][] = [];
for (const id of IDS) {
  tuples.push([id, 'authToken', '']);
  for (const field of ['env', 'headers'] as const) for (const key of KEYS) tuples.push([id, field, key]);
}

describe('secret names', () => {
  it('gives the stdio entry "gh.header" (env Authorization) and the remote "gh" (header Authorization) two names', () => {
    const stdio = secretNameFor('gh.header', 'env', 'Authorization');
    const remote = secretNameFor('gh', 'headers', 'Authorization');
    expect(stdio).toBe('gh.header/env/Authorization');
    expect(remote).toBe('gh/header/Authorization');
    expect(legacySecretName('gh.header', 'env', 'Authorization')).toBe(
      legacySecretName('gh', 'headers', 'Authorization'),
    );
  });

  it('never gives two (id, field, key) one name, and every name is a valid one of at most 128 characters', () => {
    const seen = new Map<string, string>();
    for (const t of tuples) {
      const name = secretNameFor(...t);
      expect(name, JSON.stringify(t)).toMatch(SECRET_NAME_RE);
      const other = seen.get(name);
      expect(other, `${JSON.stringify(t)} and ${other} share ${name}`).toBeUndefined();
      seen.set(name, JSON.stringify(t));
    }
    expect(seen.size).toBe(tuples.length);
  });

  it('never gives a name an earlier version gave, and says whose each name is', () => {
    const legacy = new Set(tuples.map((t) => legacySecretName(...t)));
    for (const t of tuples) {
      const name = secretNameFor(...t);
      expect(legacy.has(name), name).toBe(false);
      expect(secretNameOwner(name)).toEqual({ serverId: t[0], field: t[1] });
    }
    expect(secretNameOwner('gh.GITHUB_TOKEN')).toBeUndefined();
    expect(secretNameOwner('my-token')).toBeUndefined();
    for (const name of ['a/constructor/x', 'a/__proto__/x', 'a/env', 'a/authToken/x', 'a/env/x/y/z', '/env/x'])
      expect(secretNameOwner(name), name).toBeUndefined();
  });

  it('keeps a plain key readable, writes others as their safe characters and a digest', () => {
    expect(secretNameFor('github', 'env', 'GITHUB_TOKEN')).toBe('github/env/GITHUB_TOKEN');
    expect(secretNameFor('api', 'headers', 'X-Api-Key')).toBe('api/header/X-Api-Key');
    expect(secretNameFor('api', 'authToken')).toBe('api/authToken');
    expect(secretNameFor('gh', 'env', 'A:B')).toMatch(/^gh\/env\/A_B\/[0-9a-f]{16}$/);
    expect(secretNameFor('gh', 'env', 'K'.repeat(200))).toHaveLength(128);
  });

  it('refuses an id no config allows rather than name a secret after it', () => {
    for (const id of ['', 'a/b', 'a b', 'x'.repeat(65)])
      expect(() => secretNameFor(id, 'env', 'X'), JSON.stringify(id)).toThrow('valid server id');
  });

  it('a reference may name a secret with "/" in it', () => {
    expect(secretRefName('${secret:gh.header/env/Authorization}')).toBe('gh.header/env/Authorization');
    expect(secretRefName('${secret:github.GITHUB_TOKEN}')).toBe('github.GITHUB_TOKEN');
  });

  it("finds the references an entry makes to its own old names and to a gone entry's names, and only those", () => {
    const servers = {
      github: { command: 'x', env: { GITHUB_TOKEN: '${secret:github.GITHUB_TOKEN}', OTHER: '${secret:github.X}' } },
      mine: { command: 'x', env: { TOKEN: '${secret:github.GITHUB_TOKEN}' } },
      'gh.header': { command: 'x', env: { Authorization: '${secret:gh.header.Authorization}' } },
      gh: {
        url: 'https://x',
        headers: { Authorization: '${secret:gh.header.Authorization}' },
        authToken: '${secret:gh.authToken}',
      },
      wrapped: { command: 'x', env: { T: 'Bearer ${secret:wrapped.T}' } },
      moved: { command: 'x', env: { T: '${secret:moved/env/T}' } },
      // Renamed from "gone" (no longer in the config): its secrets follow it, old names or new.
      renamed: { command: 'x', env: { T: '${secret:gone/env/T}', U: '${secret:gone.U}', V: '${secret:gone/env/U}' } },
      // Naming a secret of an entry still there: shared on purpose, left as it is.
      ci: { command: 'x', env: { GITHUB_TOKEN: '${secret:github/env/GITHUB_TOKEN}', X: '${secret:github.X}' } },
    };
    expect(movableRefs(servers)).toEqual([
      { id: 'github', field: 'env', key: 'GITHUB_TOKEN', from: 'github.GITHUB_TOKEN', to: 'github/env/GITHUB_TOKEN' },
      {
        id: 'gh.header',
        field: 'env',
        key: 'Authorization',
        from: 'gh.header.Authorization',
        to: 'gh.header/env/Authorization',
      },
      {
        id: 'gh',
        field: 'headers',
        key: 'Authorization',
        from: 'gh.header.Authorization',
        to: 'gh/header/Authorization',
      },
      { id: 'gh', field: 'authToken', key: '', from: 'gh.authToken', to: 'gh/authToken' },
      { id: 'renamed', field: 'env', key: 'T', from: 'gone/env/T', to: 'renamed/env/T' },
      { id: 'renamed', field: 'env', key: 'U', from: 'gone.U', to: 'renamed/env/U' },
    ]);
  });
});
