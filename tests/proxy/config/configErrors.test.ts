import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../../src/proxy/config/config.js';

const SECRET = 'Sup3rSecretValue';
const env = { TOKEN: SECRET, HOST: 'h.example' };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-config-err-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Issues for one server entry `s` (plus top-level options), via parseConfig. */
function issues(entry: unknown, options: Record<string, unknown> = {}, e: NodeJS.ProcessEnv = env): string[] {
  try {
    parseConfig({ mcpServers: { s: entry }, ...options }, { env: e });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

describe('config validation errors', () => {
  it('names server and field for wrong types', () => {
    expect(issues({ command: 'x', args: ['a', 5] })).toEqual(['server "s": args[1] must be a string']);
    expect(issues({ command: 'x', args: 'a b' })).toEqual(['server "s": args must be an array of strings']);
    expect(issues({ command: 7 })).toEqual(['server "s": command must be a string']);
    expect(issues({ command: 'x', env: { PORT: 3000 } })).toEqual([
      'server "s": env.PORT must be a string (quote numbers and booleans)',
    ]);
    expect(issues({ url: 'http://h/', headers: { 'X-Api-Key': 12345678 } })).toEqual([
      'server "s": headers["X-Api-Key"] must be a string',
    ]);
    expect(issues({ command: 'x', disabled: 'yes' })).toEqual(['server "s": disabled must be true or false']);
    expect(issues({ command: 'x', tools: ['a'] })[0]).toMatch(/^server "s": tools must be an object/);
    expect(issues({ command: 'x', tools: { allow: 'a*' } })).toEqual([
      'server "s": tools.allow must be an array of strings',
    ]);
    expect(issues({ command: 'x', denyTools: [1] })).toEqual(['server "s": denyTools[0] must be a string']);
    expect(issues('npx foo')).toEqual(['server "s": must be an object']);
    expect(issues(null)).toEqual(['server "s": must be an object']);
    expect(issues({ url: 'http://h/', type: 'websocket' })[0]).toMatch(
      /^server "s": type must be one of "stdio", "http"/,
    );
    expect(issues({ url: 'http://h/', transport: 'bridge' })[0]).toMatch(/^server "s": transport must be one of/);
  });

  it('requires positive integer timeouts below the timer limit; 0 only for pingIntervalMs', () => {
    for (const bad of [0, -1, 1.5, '100', 2 ** 31, null]) {
      const got = issues({ command: 'x', timeoutMs: bad });
      expect(got, String(bad)).toHaveLength(1);
      expect(got[0]).toMatch(/^server "s": timeoutMs must be (a positive integer \(milliseconds\)|at most 2147483647)/);
    }
    expect(issues({ command: 'x', connectionTimeoutMs: 0 })).toEqual([
      'server "s": connectionTimeoutMs must be a positive integer (milliseconds)',
    ]);
    expect(issues({ url: 'http://h/', pingTimeoutMs: 0 })).toHaveLength(1);
    expect(issues({ url: 'http://h/', pingIntervalMs: -1 })).toEqual([
      'server "s": pingIntervalMs must be a non-negative integer (milliseconds; 0 disables)',
    ]);
    expect(issues({ command: 'x', toolTimeouts: { 'fs_*': 0 } })).toEqual([
      'server "s": toolTimeouts["fs_*"] must be a positive integer (milliseconds)',
    ]);
    expect(issues({ command: 'x', toolTimeouts: { '': 5 } })).toEqual([
      'server "s": toolTimeouts must not have an empty tool pattern',
    ]);
  });

  it('rejects command with url, neither, and kind/type mismatches', () => {
    expect(issues({ command: 'x', url: 'http://h/' })).toEqual([
      'server "s": has both command and url: a server is either stdio (command) or remote (url)',
    ]);
    expect(issues({ args: ['a'] })).toEqual([
      'server "s": needs either command (a stdio server) or url (a remote server)',
    ]);
    expect(issues({ disabled: true })).toHaveLength(1);
    expect(issues({ command: 'x', type: 'sse' })).toEqual(['server "s": type "sse" needs url, not command']);
    expect(issues({ command: 'x', transport: 'http' })).toEqual([
      'server "s": transport "http" needs url, not command',
    ]);
    expect(issues({ url: 'http://h/', type: 'stdio' })).toEqual(['server "s": type "stdio" needs command, not url']);
    expect(issues({ url: 'http://h/', type: 'sse', transport: 'http' })).toEqual([
      'server "s": transport ("http") contradicts type ("sse"); give only one of them',
    ]);
    expect(issues({ command: 'x', headers: { A: 'b' }, pingIntervalMs: 5 })).toEqual([
      'server "s": headers applies only to remote (url) servers',
      'server "s": pingIntervalMs applies only to remote (url) servers',
    ]);
    expect(issues({ url: 'http://h/', args: ['a'], cwd: '/' })).toEqual([
      'server "s": args applies only to stdio (command) servers',
      'server "s": cwd applies only to stdio (command) servers',
    ]);
    expect(issues({ command: '  ' })).toEqual(['server "s": command must not be empty']);
  });

  it('restricts ids and explains the rule', () => {
    const ok = parseConfig({
      mcpServers: { a: { command: 'x' }, 'A9_.-z': { command: 'x' }, ['x'.repeat(64)]: { command: 'x' } },
    });
    expect(ok.servers).toHaveLength(3);
    for (const id of ['bad id', '-lead', '.x', 'x'.repeat(65), 'a/b', 'é', '']) {
      let err: unknown;
      try {
        parseConfig({ mcpServers: { [id]: { command: 'x' } } });
      } catch (e) {
        err = e;
      }
      expect(err, id).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).issues[0]).toContain('has an invalid id: ids start with a letter or digit');
      expect((err as ConfigError).issues[0]).toContain('at most 64 characters');
    }
  });

  it('requires http(s) urls and valid header names', () => {
    expect(issues({ url: 'ws://h/mcp' })).toEqual(['server "s": url must be an http or https URL (got scheme "ws:")']);
    expect(issues({ url: 'file:///etc/passwd' })).toHaveLength(1);
    expect(issues({ url: '/relative/mcp' })).toEqual(['server "s": url is not a valid absolute URL']);
    expect(issues({ url: 'http://h/', headers: { 'Bad Name': 'x' } })).toEqual([
      'server "s": headers["Bad Name"] is not a valid HTTP header name',
    ]);
  });

  it('reports a missing variable with server, field and variable name', () => {
    expect(issues({ command: 'x', env: { GH: '${GH_TOKEN}' } }, {}, {})).toEqual([
      'server "s": env.GH references ${GH_TOKEN}, but that variable is not set (write ${GH_TOKEN:-default} to give a fallback)',
    ]);
    expect(issues({ url: '${BASE}/mcp' }, {}, {})).toHaveLength(1); // no extra "invalid URL" issue
    expect(issues({ command: 'x', args: ['${A', 'ok'] })).toEqual([
      'server "s": args[0] has an unterminated "${" at character 1',
    ]);
  });

  it('reports every problem of every server and the top level together', () => {
    let err: ConfigError | undefined;
    try {
      parseConfig({
        toolNaming: 'short',
        readyTimeoutMs: 0,
        mcpServers: { one: { command: 'x', args: [1] }, two: { url: 'ftp://h/' }, three: { command: 'ok' } },
      });
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err?.issues).toEqual([
      'toolNaming must be one of "prefixed", "original"',
      'readyTimeoutMs must be a positive integer (milliseconds)',
      'server "one": args[0] must be a string',
      'server "two": url must be an http or https URL (got scheme "ftp:")',
    ]);
    expect(err?.message).toContain('\n  - server "two"');
  });

  it('validates the top-level shape', () => {
    const top = (raw: unknown) => {
      try {
        parseConfig(raw);
      } catch (e) {
        return (e as ConfigError).issues;
      }
      return [];
    };
    expect(top({})).toEqual(['mcpServers is required']);
    expect(top({ mcpServers: [] })).toEqual(['mcpServers must be an object mapping server ids to server entries']);
    expect(top([])).toEqual(['config must be a JSON object']);
    expect(top({ mcpServers: {}, toolTimeouts: { x: 'slow' } })).toEqual([
      'toolTimeouts.x must be a positive integer (milliseconds)',
    ]);
  });

  it('checks the tool exposure keys, top level and per server', () => {
    const top = (raw: Record<string, unknown>) => {
      try {
        parseConfig({ mcpServers: {}, ...raw });
      } catch (e) {
        return (e as ConfigError).issues;
      }
      return [];
    };
    expect(top({ toolExposure: 'lazy' })).toEqual(['toolExposure must be one of "auto", "all", "search"']);
    expect(top({ toolBudgetTokens: 0 })).toEqual(['toolBudgetTokens must be a positive integer (tokens)']);
    expect(top({ toolBudgetTokens: 1.5 })).toEqual(['toolBudgetTokens must be a positive integer (tokens)']);
    expect(top({ toolBudgetTokens: '20k' })).toEqual(['toolBudgetTokens must be a positive integer (tokens)']);
    expect(top({ toolBudgetTokens: 1e9 })).toEqual(['toolBudgetTokens must be at most 100000000']);
    expect(top({ toolExposure: 'search', toolBudgetTokens: 1 })).toEqual([]);
    expect(issues({ command: 'x', expose: 'never' })).toEqual([
      'server "s": expose must be one of "always", "deferred"',
    ]);
    expect(issues({ command: 'x', expose: true })).toEqual(['server "s": expose must be one of "always", "deferred"']);
    expect(issues({ command: 'x', description: 42 })).toEqual(['server "s": description must be a string']);
    expect(issues({ command: 'x', description: 'x'.repeat(301) })).toEqual([
      'server "s": description must be at most 300 characters',
    ]);
    const cfg = parseConfig({
      mcpServers: {
        a: { command: 'x', expose: 'always', description: '  The graph.  ' },
        b: { command: 'y', expose: 'deferred', description: ' ' },
      },
    });
    expect(cfg).toMatchObject({
      toolExposure: 'auto',
      toolBudgetTokens: 20_000,
      exposeAlways: ['a'],
      serverDescriptions: { a: 'The graph.' },
    });
    // Neither is part of the server's entry: changing them restarts nothing (configDiff.ts).
    expect(cfg.servers[0]).not.toHaveProperty('expose');
  });
});

describe('config errors never print secret values', () => {
  const cases: Record<string, unknown> = {
    'env value beside a bad field': { command: 'x', env: { K: SECRET }, timeoutMs: -1 },
    'expanded env value beside a bad field': { command: 'x', env: { K: '${TOKEN}' }, args: [null] },
    'header value that is not a string': { url: 'http://h/', headers: { A: 98765432123 } },
    'header value with a line break': { url: 'http://h/', headers: { A: `${SECRET}\r\nX-Evil: 1` } },
    'authToken with a line break': { url: 'http://h/', authToken: `${SECRET}\n` },
    'url userinfo and query with a bad scheme': { url: `ftp://user:${SECRET}@h/?key=${SECRET}` },
    'url that does not parse': { url: `http://[${SECRET}` },
    // A pasted token is not a valid variable name, so it is reported without being quoted.
    'malformed reference holding the secret': { url: 'http://h/', headers: { A: `\${sk-${SECRET}}` } },
    'missing variable next to a secret': { url: 'http://h/', headers: { A: `${SECRET} \${NOPE}` } },
    'type mismatch beside a secret url': { command: 'x', url: `https://u:${SECRET}@h/` },
  };
  for (const [name, entry] of Object.entries(cases)) {
    it(name, () => {
      const got = issues(entry);
      expect(got.length).toBeGreaterThan(0);
      for (const line of got) {
        expect(line.startsWith('server "s": ')).toBe(true);
        expect(line).not.toContain(SECRET);
        expect(line).not.toContain('98765432123');
      }
    });
  }

  it('from a real file as well, in the issues and in the reason the status shows', () => {
    const path = join(dir, 'mcp.json');
    writeFileSync(
      path,
      JSON.stringify({ mcpServers: { gh: { url: `gopher://x:${SECRET}@h/`, headers: { Authorization: SECRET } } } }),
    );
    const [bad] = loadConfig(path).invalid ?? [];
    expect(bad.issues).toEqual(['server "gh": url must be an http or https URL (got scheme "gopher:")']);
    expect(bad.reason).toBe('invalid config entry: url must be an http or https URL (got scheme "gopher:")');
    expect(JSON.stringify(bad)).not.toContain(SECRET);
  });
});
