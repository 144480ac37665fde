#!/usr/bin/env node
// The MCP conformance suite's client under test for the `auth/*` scenarios: an SDK client
// on stdio in front of our `convert <url>` (dist/proxy), which does the whole sign-in. The
// "browser" is tests/fixtures/oauth/browser.mjs (follows the redirects). The suite appends
// the server URL; MCP_CONFORMANCE_CONTEXT may carry pre-registered client credentials.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const url = process.argv[process.argv.length - 1];
const ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
const dir = mkdtempSync(join(tmpdir(), 'qiming-conf-'));
const oauth = {};
if (ctx.client_id) oauth.clientId = ctx.client_id;
if (ctx.client_secret) oauth.clientSecret = ctx.client_secret;
if (process.env.CONFORMANCE_CIMD_URL) oauth.clientMetadataUrl = process.env.CONFORMANCE_CIMD_URL;
const config = join(dir, 'mcp.json');
writeFileSync(
  config,
  JSON.stringify({ mcpServers: { s: { url, type: 'http', ...(Object.keys(oauth).length ? { oauth } : {}) } } }),
);
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [
    join(root, 'dist', 'proxy', 'qiming-mcp-stdio-proxy.cjs'),
    'convert',
    '--config',
    config,
    '--name',
    's',
    '--no-watchdog',
  ],
  env: {
    ...process.env,
    QIMING_OAUTH_DIR: join(dir, 'oauth'),
    QIMING_OAUTH_BROWSER: `${process.execPath} ${join(root, 'tests', 'fixtures', 'oauth', 'browser.mjs')}`,
  },
  stderr: 'inherit',
});
const client = new Client({ name: 'qiming-conformance-auth', version: '1' });
let code = 0;
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  for (const t of tools)
    await client
      .callTool({ name: t.name, arguments: {} })
      .catch((e) => console.error(`call ${t.name}: ${e instanceof Error ? e.message : String(e)}`));
} catch (err) {
  console.error(`conformance client: ${err instanceof Error ? err.message : String(err)}`);
  code = 1;
} finally {
  await client.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
