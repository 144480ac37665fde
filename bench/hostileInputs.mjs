// Bench: what hostile inputs cost the stdio aggregation, each through the built CLI with real
// fixture servers and an SDK client, the proxy started afresh for each case:
// - search_tools (toolExposure "search", the 22 servers of tests/fixtures/toolCatalog): the
//   time of one search with a normal request (median of 20), a 40 KB word, a 1 MB word, 1 MB
//   of one-letter words joined by dashes, and 100,000 words; the index is built by a first
//   search before the timed ones;
// - a server's resource template with ten placeholders (`h://{a}{b}…{j}!`,
//   tests/fixtures/uriTemplateServer.mjs): the time of a resources/read of a 43-character URI
//   it does not match;
// - a list_changed storm (tests/fixtures/listChangedStormServer.mjs): 3000 notices in one go;
//   the tools/list requests the server received for them, the time until the aggregate lists
//   the latest version, the slowest of pings sent every 5 ms meanwhile, and the proxy's peak RSS
//   growth.
// With QIMING_PROXY_CLI_BEFORE (another build) each case runs on both, one after the other.
// A case with no answer within --timeout-ms is reported as `> <timeout>` and its proxy ended.
// The proxy runs with pinning off and HOME, XDG folders and its runtime folder in a temp dir.
//   node bench/hostileInputs.mjs [--quick] [--timeout-ms 60000] [--storm 3000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CLI,
  CLI_BEFORE,
  ROOT,
  environment,
  median,
  memoryOf,
  now,
  options,
  resetPeak,
  round,
  runBench,
  saveResults,
  sleep,
  table,
  tail,
  within,
} from './lib/common.mjs';

const opts = options({ timeoutMs: 60_000, storm: 3000, normal: 20 }, { timeoutMs: 20_000, normal: 5 });
const FIXTURES = join(ROOT, 'tests', 'fixtures');
const CATALOG = join(FIXTURES, 'toolCatalog');
const node = process.execPath;
const home = mkdtempSync(join(tmpdir(), 'qiming-bench-hostile-'));
const ENV = {
  ...process.env,
  HOME: home,
  XDG_CONFIG_HOME: join(home, 'config'),
  XDG_DATA_HOME: join(home, 'data'),
  XDG_STATE_HOME: join(home, 'state'),
  QIMING_MCP_RUNTIME_DIR: join(home, 'runtime'),
  QIMING_PINNING: 'off',
};
const TIMEOUT = Symbol('timeout');

const catalogServers = Object.fromEntries(
  readdirSync(CATALOG)
    .filter((f) => f.endsWith('.json') && f !== 'tasks.json')
    .map((f) => {
      const id = f.slice(0, -'.json'.length);
      return [id, { command: node, args: [join(FIXTURES, 'catalogServer.mjs'), id] }];
    }),
);

const TEMPLATE = 'h://{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}!';
const TEMPLATE_URI = `h://${'x'.repeat(39)}`;

/** The hostile search requests, by label. */
const QUERIES = {
  '40 KB word': 'x'.repeat(40 * 1024),
  '1 MB word': 'x'.repeat(1024 * 1024),
  '1 MB of a-a-a': 'a-'.repeat(512 * 1024),
  '100,000 words': 'take a screenshot '.repeat(100_000 / 4),
};
const NORMAL_QUERY = 'take a screenshot of the page';

/**
 * Starts the CLI at `cli` with `config` under an SDK client.
 * @param {import('./lib/common.mjs').Processes} procs
 * @param {string} cli
 * @param {Record<string, unknown>} config
 */
async function start(procs, cli, config) {
  const transport = new StdioClientTransport({
    command: node,
    args: [cli, '--config', JSON.stringify(config)],
    env: /** @type {Record<string, string>} */ (ENV),
    stderr: 'pipe',
  });
  const errors = tail(/** @type {import('node:stream').Readable | null} */ (transport.stderr));
  const client = new Client({ name: 'qiming-bench', version: '1.0.0' });
  client.onerror = () => {};
  try {
    await within(60_000, 'connect', () => client.connect(transport));
  } catch (err) {
    if (transport.pid) procs.add(transport.pid, 'proxy');
    throw new Error(`${/** @type {Error} */ (err).message}\n${errors.text()}`);
  }
  const pid = /** @type {number} */ (transport.pid);
  procs.add(pid, 'proxy');
  return { client, pid, end: () => procs.end(pid) };
}

/**
 * The ms `fn` took, or TIMEOUT past the deadline.
 * @param {() => Promise<unknown>} fn
 */
async function timed(fn) {
  const t0 = now();
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(TIMEOUT), Number(opts.timeoutMs))));
  const r = await Promise.race([fn().then(() => undefined), late]);
  clearTimeout(timer);
  return r === TIMEOUT ? TIMEOUT : now() - t0;
}

/** @param {number | typeof TIMEOUT} ms */
const shown = (ms) => (ms === TIMEOUT ? `> ${Number(opts.timeoutMs) / 1000} s` : round(ms, 2));

/**
 * @param {import('./lib/common.mjs').Processes} procs
 * @param {string} cli
 */
async function searchCases(procs, cli) {
  /** @type {Record<string, unknown>} */
  const row = {};
  const config = { toolExposure: 'search', mcpServers: catalogServers };
  /** @param {string} query */
  const search = (/** @type {Client} */ client, query) =>
    client.callTool({ name: 'search_tools', arguments: { query } }, undefined, { timeout: 600_000 });
  {
    const p = await start(procs, cli, config);
    await search(p.client, 'warm the index');
    const times = [];
    for (let i = 0; i < Number(opts.normal); i++) times.push(await timed(() => search(p.client, NORMAL_QUERY)));
    row['normal request (ms)'] = round(median(/** @type {number[]} */ (times)), 2);
    await p.end();
  }
  for (const [label, query] of Object.entries(QUERIES)) {
    const p = await start(procs, cli, config);
    await search(p.client, 'warm the index');
    row[`${label} (ms)`] = shown(await timed(() => search(p.client, query)));
    await p.end();
  }
  return row;
}

/**
 * @param {import('./lib/common.mjs').Processes} procs
 * @param {string} cli
 */
async function templateCase(procs, cli) {
  const p = await start(procs, cli, {
    mcpServers: { t: { command: node, args: [join(FIXTURES, 'uriTemplateServer.mjs'), 't', TEMPLATE] } },
  });
  const ms = await timed(() => p.client.readResource({ uri: TEMPLATE_URI }, { timeout: 600_000 }));
  await p.end();
  return { 'resources/read (ms)': shown(ms) };
}

/**
 * @param {import('./lib/common.mjs').Processes} procs
 * @param {string} cli
 */
async function stormCase(procs, cli) {
  const p = await start(procs, cli, {
    mcpServers: { s: { command: node, args: [join(FIXTURES, 'listChangedStormServer.mjs')] } },
  });
  const relists = async () =>
    Number(/** @type {any} */ (await p.client.callTool({ name: 's__relists' })).content[0].text);
  const latest = `s__version_${opts.storm}`;
  const before = await relists();
  const rss0 = memoryOf(p.pid)?.rssKiB ?? 0;
  resetPeak(p.pid);
  let pinging = true;
  /** @type {number[]} */
  const pings = [];
  const pinger = (async () => {
    while (pinging) {
      const t0 = now();
      await p.client.ping();
      pings.push(now() - t0);
      await sleep(5);
    }
  })();
  const t0 = now();
  await p.client.callTool({ name: 's__storm', arguments: { count: Number(opts.storm) } });
  let settled = /** @type {number | typeof TIMEOUT} */ (TIMEOUT);
  while (now() - t0 < Number(opts.timeoutMs)) {
    if ((await p.client.listTools()).tools.some((t) => t.name === latest)) {
      settled = now() - t0;
      break;
    }
    await sleep(10);
  }
  await sleep(200);
  pinging = false;
  await pinger;
  const after = await relists();
  const peak = memoryOf(p.pid)?.hwmKiB ?? 0;
  await p.end();
  return {
    notices: Number(opts.storm),
    're-lists': after - before,
    'latest listed after (ms)': shown(settled),
    'slowest ping (ms)': round(Math.max(...pings), 1),
    'peak RSS growth (MB)': round((peak - rss0) / 1024, 1),
  };
}

const builds = [{ build: 'this build', cli: CLI }, ...(CLI_BEFORE ? [{ build: 'before', cli: CLI_BEFORE }] : [])];
/** @type {Record<string, Record<string, unknown>[]>} */
const results = { search: [], template: [], storm: [] };

await runBench('hostileInputs', 3_600_000, async (procs) => {
  for (const { build, cli } of builds) {
    results.search.push({ build, ...(await searchCases(procs, cli)) });
    results.template.push({ build, template: TEMPLATE, uri: TEMPLATE_URI, ...(await templateCase(procs, cli)) });
    results.storm.push({ build, ...(await stormCase(procs, cli)) });
  }
  for (const rows of Object.values(results)) process.stdout.write(`${table(rows)}\n\n`);
  saveResults('hostileInputs', { ...environment(), options: opts, cliBefore: CLI_BEFORE ?? null, ...results });
});
rmSync(home, { recursive: true, force: true });
