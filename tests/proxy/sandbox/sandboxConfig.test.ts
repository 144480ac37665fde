// An entry's "sandbox" as the config reads it: true, false, an object, the top-level default
// and the entry's own winning; `~` and variables in paths; and each bad value (a relative or
// missing path, a write path not the user's, a malformed host, a sandbox on a remote entry)
// a problem naming the entry and the field, that entry set aside alone.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../src/proxy/config/config.js';
import type { StdioEntry } from '../../../src/proxy/config/configTypes.js';
import { resolveSandbox } from '../../../src/proxy/sandbox/sandboxConfig.js';
import { hostAllowed, parseHostPattern, type HostRule } from '../../../src/proxy/sandbox/hostPattern.js';
import { tempDir } from '../../helpers/proxyCli.js';

const t = tempDir('sandbox-config-');
afterAll(() => t.remove());
const home = join(t.path, 'home');
const project = join(home, 'project');
mkdirSync(project, { recursive: true });
const vars = { userHome: home, workspaceFolder: project };
const node = { command: 'node', args: ['server.js'] };

function read(raw: Record<string, unknown>) {
  return readConfig(raw, { env: { HOME: home }, vars });
}
const stdio = (c: ReturnType<typeof read>, id: string) => c.servers.find((s) => s.id === id) as StdioEntry | undefined;

describe('an entry\'s "sandbox"', () => {
  it('true is no paths and no network; false and absent are none; an object names paths and hosts', () => {
    const c = read({
      mcpServers: {
        on: { ...node, sandbox: true },
        off: { ...node, sandbox: false },
        plain: node,
        listed: {
          ...node,
          sandbox: {
            filesystem: { read: ['~/project'], write: ['${workspaceFolder}'] },
            network: { allow: ['API.example.com', '*.example.org:443'] },
          },
        },
        open: { ...node, sandbox: { network: 'all' } },
      },
    });
    expect(stdio(c, 'on')?.sandbox).toEqual({ read: [], write: [], network: 'none' });
    expect(stdio(c, 'off')?.sandbox).toBeUndefined();
    expect(stdio(c, 'plain')?.sandbox).toBeUndefined();
    // A path both read and written is written.
    expect(stdio(c, 'listed')?.sandbox).toEqual({
      read: [],
      write: [project],
      network: { allow: ['api.example.com', '*.example.org:443'] },
    });
    expect(stdio(c, 'open')?.sandbox).toEqual({ read: [], write: [], network: 'all' });
  });

  it('the top-level "sandbox" is every stdio entry\'s default; an entry\'s own wins; remote entries take none', () => {
    const c = read({
      sandbox: { filesystem: { read: ['~'] } },
      mcpServers: { a: node, b: { ...node, sandbox: false }, r: { url: 'https://example.com/mcp' } },
    });
    expect(stdio(c, 'a')?.sandbox).toEqual({ read: [home], write: [], network: 'none' });
    expect(stdio(c, 'b')?.sandbox).toBeUndefined();
    expect(c.servers.map((s) => s.id)).toEqual(['a', 'b', 'r']);
  });

  it('a bad value sets its entry aside alone, naming the entry and the field', () => {
    const c = read({
      mcpServers: {
        good: { ...node, sandbox: true },
        relative: { ...node, sandbox: { filesystem: { read: ['project'] } } },
        missing: { ...node, sandbox: { filesystem: { write: [join(home, 'nope')] } } },
        host: { ...node, sandbox: { network: { allow: ['exa mple.com', 'ok.com:99999', 'a.*.com'] } } },
        shape: { ...node, sandbox: 'yes' },
        net: { ...node, sandbox: { network: 'some' } },
        remote: { url: 'https://example.com/mcp', sandbox: true },
      },
    });
    expect(c.servers.map((s) => s.id)).toEqual(['good']);
    const reasons = Object.fromEntries((c.invalid ?? []).map((e) => [e.id, e.issues.join(' | ')]));
    expect(reasons.relative).toBe(
      'server "relative": sandbox.filesystem.read[0] ("project") must be an absolute path or start with ~',
    );
    expect(reasons.missing).toBe(
      `server "missing": sandbox.filesystem.write[0] ("${join(home, 'nope')}") does not exist`,
    );
    expect(reasons.host).toContain('server "host": sandbox.network.allow[0] ("exa mple.com") is not a host name');
    expect(reasons.host).toContain('sandbox.network.allow[1] ("ok.com:99999") has a port that is not 1-65535');
    expect(reasons.host).toContain('sandbox.network.allow[2] ("a.*.com") may have "*" only as its first label');
    expect(reasons.shape).toMatch(/^server "shape": sandbox must be true, false or \{"filesystem"/);
    expect(reasons.net).toBe(
      'server "net": sandbox.network must be "none", "all" or {"allow": ["<host>[:<port>]", "*.<domain>"]}',
    );
    expect(reasons.remote).toBe('server "remote": sandbox applies only to stdio (command) servers');
  });

  it('a bad top-level default fails each stdio entry that takes it, saying where it comes from', () => {
    const c = read({
      sandbox: { filesystem: { read: ['rel'] } },
      mcpServers: { a: node, b: { ...node, sandbox: true } },
    });
    expect(c.servers.map((s) => s.id)).toEqual(['b']);
    expect(c.invalid?.[0].issues).toEqual([
      'server "a": sandbox (the top-level default).filesystem.read[0] ("rel") must be an absolute path or start with ~',
    ]);
  });

  it('a write path must belong to the user', () => {
    const issues: string[] = [];
    const add = (p: string, m: string) => issues.push(`${p} ${m}`);
    const policy = resolveSandbox({ filesystem: { write: ['/etc'], read: ['/etc'] } }, 'sandbox', {
      env: {},
      vars,
      disabled: false,
      add,
      uid: 4242,
    });
    expect(policy).toEqual({ read: ['/etc'], write: [], network: 'none' });
    expect(issues).toEqual([
      'sandbox.filesystem.write[0] ("/etc") is not yours (owner uid 0): a sandbox writes only the user\'s own files',
    ]);
  });
});

describe('network.allow host patterns', () => {
  const rules = ['api.example.com', '*.example.org', 'local.test:8080'].map((h) => parseHostPattern(h) as HostRule);
  it('match a host, a subdomain of a wildcard (not the domain itself) and a port when one is given', () => {
    expect(hostAllowed(rules, 'API.example.com', 443)).toBe(true);
    expect(hostAllowed(rules, 'a.b.example.org', 80)).toBe(true);
    expect(hostAllowed(rules, 'example.org', 443)).toBe(false);
    expect(hostAllowed(rules, 'evil-example.org', 443)).toBe(false);
    expect(hostAllowed(rules, 'local.test', 8080)).toBe(true);
    expect(hostAllowed(rules, 'local.test', 8081)).toBe(false);
    expect(hostAllowed(rules, 'api.example.com.evil.net', 443)).toBe(false);
  });
});
