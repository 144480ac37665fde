// No configured secret leaves the proxy: env, header, bearer and url credential values of
// the entries are masked in every surface the bridge has (stderr, MCP_PROXY_LOG_FILE, the
// ready line, /status, /events, the status panel in Chromium), even when a server prints
// them itself and even at debug level.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cleanupBridges,
  fixture,
  nodeEntry,
  startBridge,
  tempDir,
  waitFor,
  type BridgeProcess,
} from '../../helpers/bridgeProcess.js';
import { refusedPort } from '../../helpers/faultyRemotes.js';
import { launchPanelBrowser, type PanelBrowser } from '../../helpers/panelBrowser.js';

const SECRETS = {
  env: 'sk-envSECRET1234567890',
  password: 'hunter22x',
  arg: 'ARGSECRET9x',
  userinfo: 'URLPASS9x',
  query: 'QUERYSECRET9x',
  header: 'HEADERSECRET9x',
  token: 'TOKENSECRET9x',
};

let bridge: BridgeProcess;
let logFile: string;
let chrome: PanelBrowser | undefined;

beforeAll(async () => {
  const dir = tempDir('secrets-');
  logFile = join(dir, 'logs', 'proxy.log');
  const port = await refusedPort();
  bridge = await startBridge({
    config: {
      mcpServers: {
        leaky: nodeEntry(fixture('secretPrinter.mjs'), ['--api-key', SECRETS.arg], {
          env: {
            API_KEY: SECRETS.env,
            DB_PASSWORD: SECRETS.password,
            PEER_NOTE: `${SECRETS.userinfo} ${SECRETS.query} ${SECRETS.header} ${SECRETS.token}`,
          },
        }),
        remote: {
          type: 'http',
          url: `http://alice:${SECRETS.userinfo}@127.0.0.1:${port}/mcp?api_key=${SECRETS.query}`,
          headers: { 'X-Api-Key': SECRETS.header },
          authToken: SECRETS.token,
          connectionTimeoutMs: 2000,
        },
      },
    },
    // The ready line comes within 3 s whatever the remote does.
    args: ['--ready-timeout', '3000'],
    env: { MCP_PROXY_LOG_FILE: logFile, MCP_PROXY_LOG_LEVEL: 'debug' },
  });
  // Both have failed at least once (the leaky server printed, the remote was refused).
  await waitFor(
    () =>
      existsSync(logFile) &&
      /\[leaky\].*peer settings/.test(readFileSync(logFile, 'utf8')) &&
      /\[remote\]/.test(readFileSync(logFile, 'utf8')),
    15_000,
    'both servers to have logged',
  );
  await bridge.waitServer(
    'leaky',
    (s) => s.stderrTail.some((l) => l.includes('peer settings')),
    10_000,
    'leaky stderr in status',
  );
}, 45_000);

afterAll(async () => {
  await chrome?.close();
  await cleanupBridges();
}, 30_000);

function expectClean(surface: string, text: string): void {
  for (const [what, secret] of Object.entries(SECRETS)) {
    expect(text.includes(secret), `${what} secret in ${surface}`).toBe(false);
  }
}

describe('configured secrets never leave the proxy', () => {
  it('are masked in stderr, the log file, the ready line, /status and /events', async () => {
    const status = await bridge.status();
    const surfaces: Record<string, string> = {
      stderr: bridge.stderr,
      'log file': readFileSync(logFile, 'utf8'),
      'ready line': JSON.stringify(bridge.ready),
      '/status': JSON.stringify(status),
      '/events': JSON.stringify(bridge.history),
    };
    for (const [name, text] of Object.entries(surfaces)) expectClean(name, text);
    // What the server printed did arrive, masked.
    const leaky = status.servers.find((s) => s.id === 'leaky')!;
    expect(leaky.stderrTail.join('\n')).toContain('connecting with key *** and password ***');
    expect(surfaces['log file']).toMatch(/\[leaky\] peer settings: \*\*\* \*\*\* \*\*\* \*\*\*/);
    expect(surfaces['log file']).toMatch(/\[leaky\] started pid \d+: .* --api-key \*\*\*/);
  });

  it('are masked in the status panel', async () => {
    const url = /status panel: (http:\/\/127\.0\.0\.1:\d+\/#token=\S+)\n/.exec(bridge.stderr)![1];
    chrome = await launchPanelBrowser();
    const { page } = await chrome.newPage();
    await page.goto(url);
    await page.locator('li.server').nth(1).waitFor();
    await page.waitForFunction(() => document.body.textContent!.includes('peer settings'), undefined, {
      timeout: 10_000,
    });
    expectClean('the panel', await page.content());
  });
});
