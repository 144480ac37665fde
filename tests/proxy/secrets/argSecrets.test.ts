// Credentials inside a stdio server's args (mcp-remote's `--header "Authorization: Bearer …"`,
// `--header=…`, `-H "X-API-Key: …"`, a JSON arg with `apiKey`) never leave the real bridge:
// not in GET /config, /status, the server's log route, stderr or a debug-level log file, even
// when the server prints its own argv. The panel's edit still round-trips them: args sent back
// as shown, or moved, keep the stored secrets; a masked arg with nothing behind it is refused.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupBridges,
  fixture,
  panelRequest,
  startBridge,
  tempDir,
  waitFor,
  type BridgeProcess,
} from '../../helpers/bridgeProcess.js';

const SECRETS = {
  bearer: 'tok-BEARER1secret9',
  inline: 'tok-INLINE2secret9',
  apiKey: 'key-APIKEY3secret9',
  json: 'sk-JSONKEY4secret9',
};
const ARGS = [
  fixture('secretPrinter.mjs'),
  'https://mcp.example.com/sse',
  '--header',
  `Authorization: Bearer ${SECRETS.bearer}`,
  `--header=Authorization:Bearer ${SECRETS.inline}`,
  '-H',
  `X-API-Key: ${SECRETS.apiKey}`,
  `{"apiKey":"${SECRETS.json}","model":"small"}`,
];

let bridge: BridgeProcess;
let file: string;
let logFile: string;

const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  panelRequest(bridge, method, path, body, headers);
const storedArgs = () =>
  (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, { args: string[] }> }).mcpServers.remote.args;

function expectClean(surface: string, text: string): void {
  for (const [what, secret] of Object.entries(SECRETS))
    expect(text.includes(secret), `${what} secret in ${surface}`).toBe(false);
}

beforeAll(async () => {
  const dir = tempDir('arg-secrets-');
  file = join(dir, 'mcp.json');
  logFile = join(dir, 'proxy.log');
  writeFileSync(file, JSON.stringify({ mcpServers: { remote: { command: process.execPath, args: ARGS } } }));
  bridge = await startBridge({
    config: file,
    args: ['--ready-timeout', '3000'],
    env: { MCP_PROXY_LOG_FILE: logFile, MCP_PROXY_LOG_LEVEL: 'debug' },
  });
  await waitFor(
    () => /\[remote\].*argv:/.test(readFileSync(logFile, 'utf8')),
    15_000,
    'the server to print its argv into the log',
  );
  await bridge.waitServer(
    'remote',
    (s) => s.stderrTail.some((l) => l.includes('argv:')),
    10_000,
    'its argv in the status',
  );
}, 45_000);

afterAll(async () => {
  await cleanupBridges();
}, 30_000);

describe('credentials in args', () => {
  it('are masked in GET /config, /status, the log route, stderr and the debug log file', async () => {
    const config = await req('GET', '/config');
    expect(config.status).toBe(200);
    const log = await req('GET', '/servers/remote/log?limit=200');
    expect(log.status).toBe(200);
    const status = await bridge.status();
    const surfaces: Record<string, string> = {
      'GET /config': config.body,
      '/status': JSON.stringify(status),
      'the log route': log.body,
      stderr: bridge.stderr,
      'the log file': readFileSync(logFile, 'utf8'),
    };
    for (const [name, text] of Object.entries(surfaces)) expectClean(name, text);
    const view = JSON.parse(config.body) as { servers: { args: string[] }[] };
    expect(view.servers[0].args.slice(1)).toEqual([
      'https://mcp.example.com/sse',
      '--header',
      'Authorization: Bearer ***',
      '--header=Authorization:Bearer ***',
      '-H',
      'X-API-Key: ***',
      '{"apiKey":"***","model":"small"}',
    ]);
    // What was masked is still there, in the shapes the server printed and the proxy logged.
    expect(surfaces['the log file']).toMatch(
      /\[remote\] started pid \d+: .* --header Authorization: Bearer \*\*\* --header=Authorization:Bearer \*\*\* -H X-API-Key: \*\*\*/,
    );
    expect(status.servers[0].stderrTail.join('\n')).toContain(
      'argv: https://mcp.example.com/sse --header Authorization: Bearer *** ',
    );
  });

  it('survive an edit that sends the masked args back, in place or moved; a masked arg with no stored value is refused', async () => {
    const shown = (JSON.parse((await req('GET', '/config')).body) as { servers: { args: string[] }[] }).servers[0].args;
    const put = (args: string[]) =>
      req('PUT', '/config/servers/remote', { entry: { kind: 'stdio', command: process.execPath, args } });

    const same = await put(shown);
    expect(same.status).toBe(200);
    expectClean('the PUT answer', same.body);
    expect(storedArgs()).toEqual(ARGS);

    const moved = await put([shown[0], '--verbose', ...shown.slice(1)]);
    expect(moved.status).toBe(200);
    expect(storedArgs()).toEqual([ARGS[0], '--verbose', ...ARGS.slice(1)]);

    const before = readFileSync(file, 'utf8');
    const orphan = await put([...shown, 'X-Other-Token: ***']);
    expect(orphan.status).toBe(400);
    expect(orphan.body).toContain('holds a masked value with no stored value to keep');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
