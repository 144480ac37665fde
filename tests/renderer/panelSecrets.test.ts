// The panel's form with a secret store, in real Chromium against the real bridge and a real
// Secret Service (a private gnome-keyring): a value typed in Environment or Headers goes to the
// keychain, the file gets only its reference, the page never receives the value, and the server
// runs with it (or, for a url entry, receives it). A pasted snippet with a plain key offers
// "Move secrets to the keychain", and confirming it writes only the reference.
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { cleanupBridges, fixture, startBridge, tempDir, type BridgeProcess } from '../helpers/bridgeProcess.js';
import { launchPanelBrowser, nonNetworkErrors, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';
import { startSecretService, type SecretService } from '../helpers/secretService.js';
import { waitFor } from '../helpers/waitFor.js';

const VALUE = `ghp_keptInTheKeychain${Math.random().toString(36).slice(2)}`;
const HEADER_VALUE = `hdr-${Math.random().toString(36).slice(2)}-keptToo9`;
const IMPORTED = `sk-imported${Math.random().toString(36).slice(2)}Zq`;
let keyring: SecretService;
let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
let panel: PanelPage;
let page: Page;
let file: string;
let log: string;
const bodies: string[] = [];

beforeAll(async () => {
  keyring = await startSecretService();
  const dir = tempDir('panel-secrets-');
  file = join(dir, 'mcp.json');
  log = join(dir, 'proxy.log');
  writeFileSync(file, `${JSON.stringify({ mcpServers: {} }, null, 2)}\n`, { mode: 0o600 });
  bridge = await startBridge({
    config: undefined,
    args: ['--config-file', file],
    env: { ...keyring.env, MCP_PROXY_LOG_FILE: log },
  });
  chrome = await launchPanelBrowser();
  panel = await chrome.newPage({ viewport: { width: 1200, height: 900 } });
  page = panel.page;
  page.on('response', (r) => {
    void r.text().then(
      (t) => bodies.push(t),
      () => undefined,
    );
  });
  await page.goto(`${bridge.url}/#token=${bridge.bearer}`);
  await page.getByRole('button', { name: 'Add server' }).waitFor();
}, 90_000);

afterAll(async () => {
  expect(nonNetworkErrors(panel?.errors ?? [])).toEqual([]);
  await panel?.context.close();
  await chrome?.close();
  await cleanupBridges();
  await keyring?.stop();
}, 40_000);

describe("the panel's form with the OS keychain (real bridge, real Chromium, real Secret Service)", () => {
  it('keeps a typed value in the keychain and writes only its reference; the page never gets the value', async () => {
    await page.getByRole('button', { name: 'Add server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add server' });
    await dialog.getByLabel('Name', { exact: true }).fill('gh');
    await dialog.getByLabel('Command', { exact: true }).fill(process.execPath);
    await dialog.getByLabel('Arguments', { exact: true }).fill(fixture('envEchoServer.mjs'));
    await dialog.getByLabel('Environment', { exact: true }).fill(`GITHUB_TOKEN=${VALUE}`);
    const keep = dialog.getByLabel('Keep new values in the OS keychain');
    expect(await keep.isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });

    const written = readFileSync(file, 'utf8');
    expect(JSON.parse(written).mcpServers.gh.env).toEqual({ GITHUB_TOKEN: '${secret:gh/env/GITHUB_TOKEN}' });
    expect(keyring.get('gh/env/GITHUB_TOKEN')).toBe(VALUE);

    // Edit shows the reference (a name, no secret).
    await page.getByRole('region', { name: 'gh', exact: true }).getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit gh' });
    expect(await edit.getByLabel('Environment', { exact: true }).inputValue()).toBe(
      'GITHUB_TOKEN=${secret:gh/env/GITHUB_TOKEN}',
    );
    await edit.getByRole('button', { name: 'Cancel' }).click();

    // The server runs with the value.
    await bridge.waitServer('gh', (s) => s.state === 'ready', 20_000, 'ready');
    const { client } = await bridge.client('/mcp/gh');
    const r = (await client.callTool({ name: 'env', arguments: { name: 'GITHUB_TOKEN' } })) as {
      content: { text: string }[];
    };
    expect(r.content[0].text).toBe(VALUE);
    for (const [what, text] of [
      ['mcp.json', readFileSync(file, 'utf8')],
      ['the log', readFileSync(log, 'utf8')],
      ['/status', JSON.stringify(await bridge.status())],
      ['what the page received', bodies.join('\n')],
    ])
      expect(text, what).not.toContain(VALUE);
  });

  it('keeps a header typed for a url entry in the keychain and writes only its reference; the server receives it', async () => {
    const seen: string[] = [];
    const remote: Server = createServer((req, res) => {
      const key = req.headers['x-api-key'];
      if (typeof key === 'string') seen.push(key);
      req.resume();
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r));
    try {
      const port = (remote.address() as { port: number }).port;
      await page.getByRole('button', { name: 'Add server' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add server' });
      await dialog.getByLabel('Name', { exact: true }).fill('api');
      await dialog.getByLabel('Type', { exact: true }).selectOption('remote');
      await dialog.getByLabel('URL', { exact: true }).fill(`http://127.0.0.1:${port}/mcp`);
      await dialog.getByLabel('Headers', { exact: true }).fill(`X-Api-Key: ${HEADER_VALUE}`);
      expect(await dialog.getByLabel('Keep new values in the OS keychain').isChecked()).toBe(true);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });

      expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.api.headers).toEqual({
        'X-Api-Key': '${secret:api/header/X-Api-Key}',
      });
      expect(keyring.get('api/header/X-Api-Key')).toBe(HEADER_VALUE);
      // The bridge resolved the reference: the server got the value in its header.
      await waitFor(() => seen.includes(HEADER_VALUE), 20_000, 'the header at the server');
      for (const [what, text] of [
        ['mcp.json', readFileSync(file, 'utf8')],
        ['the log', readFileSync(log, 'utf8')],
        ['/status', JSON.stringify(await bridge.status())],
        ['what the page received', bodies.join('\n')],
      ])
        expect(text, what).not.toContain(HEADER_VALUE);
    } finally {
      remote.closeAllConnections();
      await new Promise<void>((r) => remote.close(() => r()));
    }
  });

  it('offers to move the plain key of a pasted snippet to the keychain; confirmed, mcp.json gets only the reference', async () => {
    await page.getByRole('button', { name: 'Paste a snippet' }).click();
    const dialog = page.getByRole('dialog', { name: 'Paste a snippet' });
    const snippet = {
      mcpServers: {
        pasted: { command: process.execPath, args: [fixture('envEchoServer.mjs')], env: { OPENAI_API_KEY: IMPORTED } },
      },
    };
    await dialog.getByLabel('Snippet', { exact: true }).fill(JSON.stringify(snippet, null, 2));
    await dialog.getByRole('button', { name: 'Preview' }).click();
    await dialog.getByText('In clear: OPENAI_API_KEY').waitFor();
    const move = dialog.getByLabel('Move secrets to the keychain');
    expect(await move.isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Add 1 server' }).click();
    await dialog.waitFor({ state: 'detached' });

    const written = readFileSync(file, 'utf8');
    expect(written).not.toContain(IMPORTED);
    expect(written).toContain('${secret:pasted/env/OPENAI_API_KEY}');
    expect(JSON.parse(written).mcpServers.pasted.env).toEqual({
      OPENAI_API_KEY: '${secret:pasted/env/OPENAI_API_KEY}',
    });
    expect(keyring.get('pasted/env/OPENAI_API_KEY')).toBe(IMPORTED);

    await bridge.waitServer('pasted', (s) => s.state === 'ready', 20_000, 'ready');
    const { client } = await bridge.client('/mcp/pasted');
    const r = (await client.callTool({ name: 'env', arguments: { name: 'OPENAI_API_KEY' } })) as {
      content: { text: string }[];
    };
    expect(r.content[0].text).toBe(IMPORTED);
    for (const [what, text] of [
      ['the log', readFileSync(log, 'utf8')],
      ['/status', JSON.stringify(await bridge.status())],
    ])
      expect(text, what).not.toContain(IMPORTED);
  });
});
