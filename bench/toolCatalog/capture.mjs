// Captures the tool definitions of real MCP servers from npm into tests/fixtures/toolCatalog/<id>.json
// (the test data of tool search and of the token calibration). A one-off tool, run by hand:
//
//   mkdir -p /tmp/catalog-install && cd /tmp/catalog-install && npm init -y >/dev/null &&
//     npm install --no-audit --no-fund --ignore-scripts <the packages of SERVERS below>
//   node bench/toolCatalog/capture.mjs [--install /tmp/catalog-install] [--only id,id] [--out DIR]
//
// Each server is started over stdio from the install folder (never from the project), offline,
// with a scratch HOME and working folder and dummy credentials where it insists on one; the
// SDK v1 client does initialize and every page of tools/list; the file holds the package, its
// version and licence, the serverInfo, the instructions and the tools exactly as listed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const args = process.argv.slice(2);
/** @param {string} name */
const opt = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const INSTALL = opt('install') ?? '/tmp/catalog-install';
const OUT = opt('out') ?? join(ROOT, 'tests', 'fixtures', 'toolCatalog');
const ONLY = opt('only')?.split(',');
const START_TIMEOUT_MS = 90_000;

/** A placeholder where a server refuses to start without a credential: never a real secret. */
const DUMMY = 'dummy-offline-capture';

/** @typedef {{ id: string, pkg: string, bin?: string, args?: string[], env?: Record<string, string> }} CaptureServer */
/** @typedef {{ version: string, license?: string | { type?: string }, bin: string | Record<string, string> }} Manifest */

/**
 * The servers: short id, npm package, the `bin` to run, its arguments and the environment it
 * needs to start. `{scratch}` in an argument or value is the server's scratch folder.
 * @type {CaptureServer[]}
 */
const SERVERS = [
  { id: 'playwright', pkg: '@playwright/mcp' },
  {
    id: 'chrome-devtools',
    pkg: 'chrome-devtools-mcp',
    bin: 'chrome-devtools-mcp',
    args: ['--no-usage-statistics'],
    env: { CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: '1' },
  },
  { id: 'context7', pkg: '@upstash/context7-mcp' },
  { id: 'filesystem', pkg: '@modelcontextprotocol/server-filesystem', args: ['{scratch}'] },
  { id: 'memory', pkg: '@modelcontextprotocol/server-memory', env: { MEMORY_FILE_PATH: '{scratch}/memory.jsonl' } },
  { id: 'sequential-thinking', pkg: '@modelcontextprotocol/server-sequential-thinking' },
  { id: 'everything', pkg: '@modelcontextprotocol/server-everything', args: ['stdio'] },
  { id: 'github', pkg: '@modelcontextprotocol/server-github', env: { GITHUB_PERSONAL_ACCESS_TOKEN: DUMMY } },
  { id: 'notion', pkg: '@notionhq/notion-mcp-server', env: { NOTION_TOKEN: DUMMY } },
  { id: 'firecrawl', pkg: 'firecrawl-mcp', env: { FIRECRAWL_API_KEY: DUMMY } },
  { id: 'desktop-commander', pkg: '@wonderwhy-er/desktop-commander', bin: 'desktop-commander' },
  { id: 'mongodb', pkg: 'mongodb-mcp-server', env: { MDB_MCP_TELEMETRY: 'disabled' } },
  { id: 'sentry', pkg: '@sentry/mcp-server', env: { SENTRY_ACCESS_TOKEN: DUMMY } },
  { id: 'chart', pkg: '@antv/mcp-server-chart' },
  { id: 'tavily', pkg: 'tavily-mcp', env: { TAVILY_API_KEY: DUMMY } },
  { id: 'exa', pkg: 'exa-mcp-server', env: { EXA_API_KEY: DUMMY } },
  { id: 'figma', pkg: 'figma-developer-mcp', args: ['--stdio'], env: { FIGMA_API_KEY: DUMMY } },
  { id: 'kubernetes', pkg: 'mcp-server-kubernetes' },
  { id: 'brave-search', pkg: '@brave/brave-search-mcp-server', env: { BRAVE_API_KEY: DUMMY } },
  { id: 'azure', pkg: '@azure/mcp', args: ['server', 'start'] },
  { id: 'task-master', pkg: 'task-master-ai', bin: 'task-master-ai' },
  { id: 'puppeteer', pkg: '@modelcontextprotocol/server-puppeteer' },
];

/**
 * @param {string} pkg
 * @returns {Manifest}
 */
function packageJson(pkg) {
  return JSON.parse(readFileSync(join(INSTALL, 'node_modules', pkg, 'package.json'), 'utf8'));
}

/**
 * The file a package's bin runs: the named one, else its only (or first) bin.
 * @param {string} pkg
 * @param {Manifest} manifest
 * @param {string} [name]
 */
function binFile(pkg, manifest, name) {
  const bin = manifest.bin;
  const rel = typeof bin === 'string' ? bin : bin[name ?? Object.keys(bin)[0]];
  if (!rel) throw new Error(`${pkg} has no bin ${name}`);
  return join(INSTALL, 'node_modules', pkg, rel);
}

/**
 * A file of the installed package, or undefined.
 * @param {string} pkg
 * @param {string} name
 */
function packageFile(pkg, name) {
  try {
    return readFileSync(join(INSTALL, 'node_modules', pkg, name), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The licence as package.json states it; where it says "SEE LICENSE IN …" or nothing, the
 * licence its LICENSE file or README names (the reference servers ship no LICENSE file and
 * say "licensed under the MIT License" in their README).
 * @param {string} pkg
 * @param {Manifest} manifest
 */
function licenseOf(pkg, manifest) {
  const stated = typeof manifest.license === 'string' ? manifest.license : manifest.license?.type;
  if (stated && !stated.startsWith('SEE LICENSE')) return stated;
  const file = ['LICENSE', 'LICENSE.md', 'LICENSE.txt'].map((f) => packageFile(pkg, f)).find(Boolean);
  if (file && /^\s*MIT License/.test(file)) return 'MIT';
  if (file && /Apache License/.test(file.slice(0, 200))) return 'Apache-2.0';
  const readme = /licensed under the (MIT|Apache 2\.0|ISC) License/.exec(packageFile(pkg, 'README.md') ?? '');
  if (readme) return readme[1] === 'Apache 2.0' ? 'Apache-2.0' : readme[1];
  return stated ?? 'UNKNOWN';
}

/** @param {string} text @param {string} scratch */
const fill = (text, scratch) => text.replaceAll('{scratch}', scratch);

/**
 * Starts one server, lists every page of its tools, stops it.
 * @param {CaptureServer} server
 */
async function capture(server) {
  const manifest = packageJson(server.pkg);
  // A fixed path, so that a server naming its working folder in a description (figma) says the same every run.
  const scratch = join(tmpdir(), 'tool-catalog', server.id);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: scratch,
    TMPDIR: scratch,
    DO_NOT_TRACK: '1',
    NODE_ENV: 'production',
    ...Object.fromEntries(Object.entries(server.env ?? {}).map(([k, v]) => [k, fill(v, scratch)])),
  };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binFile(server.pkg, manifest, server.bin), ...(server.args ?? []).map((a) => fill(a, scratch))],
    env,
    cwd: scratch,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr = (stderr + d.toString('utf8')).slice(-4000)));
  const client = new Client({ name: 'tool-catalog-capture', version: '1.0.0' });
  try {
    await client.connect(transport, { timeout: START_TIMEOUT_MS });
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: START_TIMEOUT_MS });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return {
      package: server.pkg,
      version: manifest.version,
      license: licenseOf(server.pkg, manifest),
      serverInfo: client.getServerVersion() ?? null,
      instructions: client.getInstructions() ?? null,
      tools,
    };
  } catch (err) {
    throw new Error(`${server.id}: ${err instanceof Error ? err.message : String(err)}\n${stderr.slice(-1500)}`);
  } finally {
    await client.close().catch(() => {});
    try {
      rmSync(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    } catch (err) {
      console.error(`${server.id}: scratch folder ${scratch} left behind: ${err instanceof Error ? err.message : err}`);
    }
  }
}

mkdirSync(OUT, { recursive: true });
let totalTools = 0;
let totalBytes = 0;
const failed = [];
for (const server of SERVERS.filter((s) => !ONLY || ONLY.includes(s.id))) {
  try {
    const entry = await capture(server);
    const file = join(OUT, `${server.id}.json`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(entry, null, 2)}\n`);
    const bytes = Buffer.byteLength(JSON.stringify(entry.tools));
    totalTools += entry.tools.length;
    totalBytes += bytes;
    console.log(`${server.id}\t${entry.version}\t${entry.license}\t${entry.tools.length} tools\t${bytes} bytes`);
  } catch (err) {
    failed.push(server.id);
    console.error(`FAILED ${err instanceof Error ? err.message : String(err)}`);
  }
}
rmSync(join(tmpdir(), 'tool-catalog'), { recursive: true, force: true });
console.log(`total\t${totalTools} tools\t${totalBytes} bytes${failed.length ? `\tfailed: ${failed.join(', ')}` : ''}`);
process.exitCode = failed.length ? 1 : 0;
