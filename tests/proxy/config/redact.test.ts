import { describe, expect, it } from 'vitest';
import { parseConfig, type RemoteEntry, type StdioEntry } from '../../../src/proxy/config/config.js';
import { argSecrets, entrySecrets, redactArgs, redactUrl } from '../../../src/proxy/config/redact.js';
import { SecretMask } from '../../../src/proxy/config/secretMask.js';

const SECRET = 'Sup3rSecretValue';

describe('redactUrl', () => {
  it('strips userinfo and masks query values and fragments, keeping the rest', () => {
    expect(redactUrl(`https://user:${SECRET}@api.example.com:8443/v1/mcp?key=${SECRET}&mode=x#frag`)).toBe(
      'https://api.example.com:8443/v1/mcp?key=***&mode=***#***',
    );
    expect(redactUrl('http://127.0.0.1:3000/mcp')).toBe('http://127.0.0.1:3000/mcp');
    expect(redactUrl(`http://h/?${SECRET}`)).toBe('http://h/?***');
  });

  it('masks unparseable urls from the query on and drops userinfo', () => {
    const out = redactUrl(`not a url //me:${SECRET}@host/x?token=${SECRET}`);
    expect(out).not.toContain(SECRET);
    expect(out).toContain('host/x?***');
  });
});

describe('entrySecrets', () => {
  const cfg = parseConfig(
    {
      mcpServers: {
        gh: {
          command: 'npx',
          args: [
            '-y',
            'server-github',
            '--token',
            SECRET,
            '--api-key=abc123456',
            'postgres://u:pw12345@db/x',
            'ghp_abcdef123',
          ],
          env: { GITHUB_TOKEN: SECRET, DEBUG: '1', FLAG: 'true' },
          cwd: '/srv',
        },
        remote: {
          url: `https://bobby:${SECRET}@h.example/mcp?apikey=${SECRET}`,
          headers: { 'X-Api-Key': 'hdr-value-1' },
          authToken: 'tok-value-22',
          type: 'sse',
        },
        off: { type: 'bridge', url: 'http://127.0.0.1:1/mcp/x', disabled: true },
      },
    },
    { env: {} },
  );
  const [gh, remote, off] = cfg.servers as [StdioEntry, RemoteEntry, RemoteEntry];

  it('lists env and header values, the credentials in args, the bare token and url credentials, skipping trivial values', () => {
    expect(entrySecrets(gh)).toEqual([SECRET, 'ghp_abcdef123', 'abc123456', 'pw12345']);
    expect(entrySecrets(remote)).toEqual(
      expect.arrayContaining([SECRET, 'bobby', 'hdr-value-1', 'Bearer tok-value-22', 'tok-value-22']),
    );
    expect(entrySecrets(off)).toEqual([]);
  });
});

describe('which values are masked everywhere', () => {
  it('takes values named or shaped like credentials, not everyday ones', () => {
    const cfg = parseConfig(
      {
        mcpServers: {
          s: {
            command: 'node',
            env: {
              LOG_LEVEL: 'debug',
              MEMORY_FILE_PATH: '/home/me/memory.jsonl',
              DB_PASSWORD: 'hunter22',
              OPAQUE: 'a1b2c3d4e5f6g7h8i9',
              OTHER: 'ghp_abc',
            },
          },
          r: {
            url: 'https://me:pw99@h.example/mcp?format=json&sig=abcd1234&x=QWERTY123456uiop',
            headers: { Accept: 'application/json', 'X-Api-Key': 'k-1234' },
          },
        },
      },
      {},
    );
    const [s, r] = cfg.servers;
    expect(entrySecrets(s).sort()).toEqual(['a1b2c3d4e5f6g7h8i9', 'ghp_abc', 'hunter22'].sort());
    const rs = entrySecrets(r);
    for (const v of ['me', 'pw99', 'abcd1234', 'QWERTY123456uiop', 'k-1234'])
      if (v.length >= 4) expect(rs).toContain(v);
    for (const v of ['json', 'application/json']) expect(rs).not.toContain(v);
  });

  it('SecretMask masks every spelling of a secret and redacts urls in free text', () => {
    const mask = new SecretMask();
    mask.add(['p"w\\1x', 'a b&c']);
    expect(mask.mask('raw p"w\\1x json p\\"w\\\\1x url a%20b%26c')).toBe('raw *** json *** url ***');
    expect(mask.mask('GET https://u:p@h.example/x?k=v failed')).toBe('GET https://h.example/x?k=*** failed');
    expect(mask.mask('nothing here')).toBe('nothing here');
  });
});

describe('redactUrl on path segments and urls inside text', () => {
  it('masks secret-looking path segments (token prefixes, long letter-digit runs), keeping ordinary ones', async () => {
    const { redactUrlsInText } = await import('../../../src/proxy/config/redact.js');
    expect(redactUrl('https://h/v1/sk-live1234/mcp')).toBe('https://h/v1/***/mcp');
    expect(redactUrl('https://h/ghp_abcDEF123/x')).toBe('https://h/***/x');
    expect(redactUrl('https://h/keys/a1B2c3D4e5F6g7H8i9J0k1L2/mcp')).toBe('https://h/keys/***/mcp');
    expect(redactUrl('https://h/keys/0123456789abcdef0123456789abcdef')).toBe('https://h/keys/***');
    for (const plain of [
      'http://127.0.0.1:3000/mcp',
      'https://h/servers/server-github-2024-edition/mcp',
      'https://h/s/123e4567-e89b-12d3-a456-426614174000',
      'https://h/aVeryLongPathSegmentWithoutDigits',
    ]) {
      expect(redactUrl(plain)).toBe(plain);
    }
    expect(
      redactUrlsInText(`HTTP 401 from http://u:${SECRET}@h:1/x?api_key=${SECRET}: no; again https://h/sk-abcdef`),
    ).toBe('HTTP 401 from http://h:1/x?api_key=***: no; again https://h/***');
  });
});

describe('credentials inside args', () => {
  const cases: [string[], string[]][] = [
    [
      ['-y', 'mcp-remote', 'https://mcp.example.com/sse', '--header', 'Authorization: Bearer tok-AAAA1111'],
      ['-y', 'mcp-remote', 'https://mcp.example.com/sse', '--header', 'Authorization: Bearer ***'],
    ],
    [['--header=Authorization:Bearer tok-BBBB2222'], ['--header=Authorization:Bearer ***']],
    [
      ['--header', 'Authorization:tok-CCCC3333'],
      ['--header', 'Authorization:***'],
    ],
    [
      ['-H', 'X-API-Key: key-DDDD4444'],
      ['-H', 'X-API-Key: ***'],
    ],
    [
      ['--config', '{"apiKey":"sk-EEEE5555","model":"gpt-4o","nested":{"token":"tok-FFFF6666"}}'],
      ['--config', '{"apiKey":"***","model":"gpt-4o","nested":{"token":"***"}}'],
    ],
    [['Bearer tok-GGGG7777'], ['Bearer ***']],
    [
      ['--token', 'tok-HHHH8888', '--api-key=abc123456', 'ghp_abcdef123'],
      ['--token', '***', '--api-key=***', '***'],
    ],
  ];

  it('masks the value of credential-named headers, bearer tokens, JSON credentials and secret flags, keeping the rest of the arg', () => {
    for (const [args, shown] of cases) expect(redactArgs(args)).toEqual(shown);
  });

  it('lists exactly the masked values, so a server printing its argv is masked too', () => {
    const secrets = cases.flatMap(([args]) => argSecrets(args));
    expect(secrets.sort()).toEqual(
      [
        'tok-AAAA1111',
        'tok-BBBB2222',
        'tok-CCCC3333',
        'key-DDDD4444',
        'sk-EEEE5555',
        'tok-FFFF6666',
        'tok-GGGG7777',
        'tok-HHHH8888',
        'abc123456',
        'ghp_abcdef123',
      ].sort(),
    );
    const mask = new SecretMask();
    mask.add(secrets);
    expect(mask.mask(`argv: ${cases.map(([a]) => a.join(' ')).join(' ')}`)).not.toMatch(/[A-H]{4}\d{4}|abc123456|ghp_/);
  });

  it('leaves everyday args and ${VAR} references as they are', () => {
    const plain = [
      '-y',
      '@scope/server@1.2.3',
      '--header',
      'Accept: application/json',
      '--header',
      'Authorization: Bearer ${AUTH_TOKEN}',
      'C:\\data\\x.json',
      '{"debug":true,"root":"/home/me/x","name":"server-github"}',
      'https://h.example/mcp',
    ];
    expect(redactArgs(plain)).toEqual(plain);
    expect(argSecrets(plain)).toEqual([]);
  });
});
