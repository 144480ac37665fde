// `convert --config-file <file> --name <entry>` runs that entry as the other modes would: its
// `${secret:NAME}`s are read from the OS keychain (a private gnome-keyring on a private session
// bus), a secret the keychain lacks fails with exit 2 and a sentence naming it, and the entry's
// approval policy and pinning apply (a changed tool is withheld); `"off"` for both gives back the plain pipe. The built CLI,
// a real remote MCP server behind a loopback front that admits only the right API key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectProxy, ensureBuilt, startHttpFixture, tempDir, type ProxyHandle } from '../../helpers/proxyCli.js';
import { runCli } from '../../helpers/cliProcess.js';
import { waitFor } from '../../helpers/waitFor.js';
import { launchPinPath } from '../../helpers/pinPaths.js';
import { startSecretService, type SecretService } from '../../helpers/secretService.js';

const VALUE = `sk-convert-${Math.random().toString(36).slice(2)}Wv3`;
const SECRET = 'remote.header.X-Api-Key';

let keyring: SecretService;
let fixture: Awaited<ReturnType<typeof startHttpFixture>>;
let front: http.Server;
let frontUrl: string;
/** The port of the server the front passes requests to: the fixture's, or another behind the same URL. */
let backendPort: number;
/** Requests the front let through (with the right key) and refused. */
const seen = { admitted: 0, refused: 0 };
const dir = tempDir('qiming-convert-trust-');
const handles: ProxyHandle[] = [];

beforeAll(async () => {
  ensureBuilt();
  keyring = await startSecretService();
  fixture = await startHttpFixture('http');
  backendPort = fixture.port;
  // Passes a request on to the fixture only with the key the keychain holds.
  front = http.createServer((req, res) => {
    if (req.headers['x-api-key'] !== VALUE) {
      seen.refused++;
      res.writeHead(403, { 'content-type': 'text/plain' }).end('wrong key');
      return;
    }
    seen.admitted++;
    const up = http.request(
      { host: '127.0.0.1', port: backendPort, method: req.method, path: req.url, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        res.flushHeaders();
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  frontUrl = `http://127.0.0.1:${(front.address() as { port: number }).port}/mcp`;
}, 60_000);

afterAll(async () => {
  for (const h of handles) await h.close();
  front?.closeAllConnections();
  await new Promise((r) => front?.close(r));
  await fixture?.stop();
  await keyring?.stop();
  dir.remove();
}, 30_000);

/** A config file holding `config`; its path. */
function configFile(name: string, config: unknown): string {
  const file = join(dir.path, name);
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  return file;
}

const remote = (extra: Record<string, unknown> = {}) => ({
  url: frontUrl,
  type: 'http',
  headers: { 'X-Api-Key': `\${secret:${SECRET}}` },
  ...extra,
});

async function convert(file: string, env: Record<string, string> = {}): Promise<ProxyHandle> {
  const h = await connectProxy(
    ['convert', '--config-file', file, '--name', 'remote', '--no-watchdog'],
    {},
    {
      ...keyring.env,
      ...env,
    },
  );
  handles.push(h);
  return h;
}

async function callText(h: ProxyHandle, name: string): Promise<string> {
  try {
    const r = await h.client.callTool({ name, arguments: name === 'echo' ? { text: 'hi' } : {} });
    return (r.content as { text: string }[])[0].text;
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

describe('convert --config', () => {
  it("reads the entry's ${secret:NAME} from the keychain, and no log holds the value", async () => {
    keyring.set(SECRET, VALUE);
    const log = join(dir.path, 'convert.log');
    const h = await convert(configFile('secret.json', { mcpServers: { remote: remote() } }), {
      MCP_PROXY_LOG_FILE: log,
      MCP_PROXY_LOG_LEVEL: 'debug',
    });
    expect(await callText(h, 'echo')).toBe('hi');
    expect(seen.admitted).toBeGreaterThan(0);
    expect(seen.refused).toBe(0);
    expect(h.stderr.join('\n')).not.toContain(VALUE);
    expect(readFileSync(log, 'utf8')).not.toContain(VALUE);
  });

  it('a secret the keychain lacks: exit 2, one sentence naming it, no stack trace', async () => {
    const file = configFile('missing.json', {
      mcpServers: { remote: remote({ headers: { 'X-Api-Key': '${secret:remote.missing}' } }) },
    });
    const r = await runCli(['convert', '--config-file', file, '--name', 'remote'], {
      env: { ...process.env, ...keyring.env },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('${secret:remote.missing}');
    expect(r.stderr).toContain('not in the OS keychain');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("applies the entry's approval policy: a denied tool is refused, the others run", async () => {
    const h = await convert(
      configFile('deny.json', { mcpServers: { remote: remote({ approval: { echo: 'deny' } }) } }),
    );
    expect(await callText(h, 'echo')).toMatch(/denied by the approval policy/);
    expect(await callText(h, 'whoami')).toContain('"name":"http"');
    await waitFor(
      () => h.stderr.join('\n').includes('one-server hub'),
      10_000,
      'the log line of the hub convert serves by',
    );
  });

  it('"off" for approval and pinning is the plain pipe again', async () => {
    const file = configFile('off.json', {
      approval: 'off',
      pinning: 'off',
      mcpServers: { remote: remote({ approval: { echo: 'deny' } }) },
    });
    const h = await convert(file);
    expect(await callText(h, 'echo')).toBe('hi');
    // The pipe passes the server's own initialize answer through.
    expect(h.client.getServerVersion()?.name).toBe('http');
    expect(h.stderr.join('\n')).not.toContain('one-server hub');
  });

  it("pins the entry's tools, and withholds one that changed", async () => {
    const pins = join(dir.path, 'pins');
    rmSync(pins, { recursive: true, force: true });
    const env = { QIMING_PINNING: 'block', QIMING_PINS_DIR: pins };
    const h = await convert(configFile('pins.json', { approval: 'off', mcpServers: { remote: remote() } }), env);
    expect((await h.client.listTools()).tools.map((t) => t.name)).toContain('echo');
    const pinFile = launchPinPath(pins, { url: frontUrl });
    expect(readFileSync(pinFile, 'utf8')).toContain('echo from http');

    // The same URL now leads to a server whose `echo` says something else: withheld, and a call says it changed.
    const other = await startHttpFixture('http', { name: 'rugpull' });
    backendPort = other.port;
    try {
      const d = await convert(configFile('drift.json', { approval: 'off', mcpServers: { remote: remote() } }), env);
      const names = (await d.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('whoami');
      expect(names).not.toContain('echo');
      expect(await callText(d, 'echo')).toMatch(/changed/);
    } finally {
      backendPort = fixture.port;
      await other.stop();
    }
  });
});
