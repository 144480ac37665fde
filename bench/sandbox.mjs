// Bench: a stdio server in its sandbox (bubblewrap, Linux) beside the same server unsandboxed,
// through the CLI's stdio aggregation. Start-up: spawn of the CLI to the first tools/list that
// holds the server's tools, for server-everything, server-memory, server-filesystem and the
// echo fixture, each sandboxed with the paths it needs. A call: sequential tools/call of the
// echo fixture's `echo`, p50 and p95. Every run gets its own HOME and data folder.
//   node bench/sandbox.mjs [--quick] [--rounds 6] [--calls 300]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CLI,
  ECHO_SERVER,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  MEMORY_SERVER,
  environment,
  now,
  options,
  percentile,
  round,
  saveResults,
  table,
} from './lib/common.mjs';

const opts = options({ rounds: 6, calls: 300 }, { rounds: 2, calls: 50 });
const node = process.execPath;
const dir = mkdtempSync(join(tmpdir(), 'qiming-bench-sandbox-'));
const home = join(dir, 'home');
const files = join(dir, 'files');
const memory = join(dir, 'memory');
for (const d of [home, files, memory]) mkdirSync(d, { recursive: true });
const env = {
  ...process.env,
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  QIMING_DATA_DIR: join(dir, 'data'),
  MCP_PROXY_LOG_LEVEL: 'warn',
};

/** @type {Record<string, { entry: Record<string, unknown>; sandbox: Record<string, unknown> | true; tool: string }>} */
const servers = {
  everything: { entry: { command: node, args: [EVERYTHING_SERVER, 'stdio'] }, sandbox: true, tool: 'echo' },
  memory: {
    entry: { command: node, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(memory, 'memory.jsonl') } },
    sandbox: { filesystem: { write: [memory] } },
    tool: 'read_graph',
  },
  filesystem: {
    entry: { command: node, args: [FILESYSTEM_SERVER, files] },
    sandbox: { filesystem: { write: [files] } },
    tool: 'list_allowed_directories',
  },
  echo: { entry: { command: node, args: [ECHO_SERVER] }, sandbox: true, tool: 'echo' },
};

/**
 * @param {string} id
 * @param {boolean} boxed
 */
async function start(id, boxed) {
  const s = servers[id];
  const file = join(dir, `${id}-${boxed}.json`);
  const entry = { ...s.entry, ...(boxed ? { sandbox: s.sandbox } : {}), approval: 'off', pinning: 'off' };
  writeFileSync(file, JSON.stringify({ mcpServers: { [id]: entry } }));
  const t0 = now();
  const transport = new StdioClientTransport({
    command: node,
    args: [CLI, '--config-file', file],
    env: /** @type {Record<string, string>} */ (env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'bench-sandbox', version: '1.0.0' });
  await client.connect(transport);
  const tools = await client.listTools();
  const ms = now() - t0;
  if (!tools.tools.some((t) => t.name === `${id}__${s.tool}`))
    throw new Error(`${id} (${boxed ? 'sandboxed' : 'plain'}) did not start:\n${stderr}`);
  return { client, ms, close: () => client.close() };
}

const rows = [];
/** @type {Record<string, unknown>} */
const results = {};
try {
  for (const id of Object.keys(servers)) {
    /** @type {Record<string, number[]>} */
    const ms = { plain: [], sandboxed: [] };
    for (const boxed of [false, true]) await (await start(id, boxed)).close(); // warm the file cache
    for (let r = 0; r < opts.rounds; r++)
      for (const boxed of r % 2 ? [true, false] : [false, true]) {
        const p = await start(id, boxed);
        ms[boxed ? 'sandboxed' : 'plain'].push(p.ms);
        await p.close();
      }
    const plain = percentile(ms.plain, 50);
    const sandboxed = percentile(ms.sandboxed, 50);
    results[id] = { startMs: ms };
    rows.push({
      measure: `start-up, ${id} (p50 ms)`,
      plain: round(plain, 0),
      sandboxed: round(sandboxed, 0),
      ratio: round(sandboxed / plain, 2),
    });
  }
  /** @type {Record<string, number[]>} */
  const calls = { plain: [], sandboxed: [] };
  for (const boxed of [false, true]) {
    const p = await start('echo', boxed);
    for (let i = 0; i < 20; i++) await p.client.callTool({ name: 'echo__echo', arguments: { text: 'warm' } });
    for (let i = 0; i < opts.calls; i++) {
      const t0 = now();
      await p.client.callTool({ name: 'echo__echo', arguments: { text: `call ${i}` } });
      calls[boxed ? 'sandboxed' : 'plain'].push(now() - t0);
    }
    await p.close();
  }
  for (const p of [50, 95]) {
    const plain = percentile(calls.plain, p);
    const sandboxed = percentile(calls.sandboxed, p);
    rows.push({
      measure: `a call, echo (p${p} ms)`,
      plain: round(plain, 2),
      sandboxed: round(sandboxed, 2),
      ratio: round(sandboxed / plain, 2),
    });
  }
  results.calls = calls;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`${table(rows)}\n`);
saveResults('sandbox', { environment: environment(), options: opts, rows, results });
