// Bench 2: readiness, i.e. spawn to a complete tools/list, of our stdio proxy whose upstreams
// are a warm bridge (as an ACP agent spawns it for each session), against spawning the real
// servers cold: server-everything, server-memory, server-filesystem (from node_modules).
// The bridge hosts those same three servers; the proxy's config has one `bridge` entry per
// server, the shape src/main/acp/acp.ts builds. Floors measured alongside: `node -e 0` and our
// CLI's `--version` (spawn to exit). Interleaved rounds; each spawn ended by pid.
//   node bench/readiness.mjs [--quick] [--rounds 15]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliArgs, startBridge } from './lib/paths.mjs';
import {
  CLI,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  MEMORY_SERVER,
  environment,
  median,
  now,
  options,
  percentile,
  round,
  runBench,
  saveResults,
  table,
  tail,
  within,
} from './lib/common.mjs';

const opts = options({ rounds: 15, deadlineMs: 400_000 }, { rounds: 3, deadlineMs: 180_000 });
const node = process.execPath;
const TARGET_MS = 200;
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/**
 * Spawn -> initialize -> tools/list; returns ms and the tool count; ends the process by pid.
 * @param {import('./lib/common.mjs').Processes} procs
 * @param {string} what
 * @param {string[]} args
 * @param {Record<string, string>} env
 */
async function ready(procs, what, args, env) {
  const transport = new StdioClientTransport({ command: node, args, env, stderr: 'pipe' });
  const errors = tail(/** @type {import('node:stream').Readable | null} */ (transport.stderr));
  const client = new Client({ name: 'qiming-bench', version: '1.0.0' });
  client.onerror = () => {};
  const t0 = now();
  try {
    const tools = await within(30_000, what, async () => {
      await client.connect(transport);
      return (await client.listTools()).tools;
    });
    const ms = now() - t0;
    return { ms, tools: tools.length };
  } catch (/** @type {any} */ err) {
    throw new Error(`${err.message}\n${errors.text()}`);
  } finally {
    if (transport.pid) {
      procs.add(transport.pid, what);
      procs.snapshot();
      await procs.end(transport.pid, 3000);
    }
    await client.close().catch(() => undefined);
  }
}

/**
 * Spawn to exit of a process that does nothing MCP: the floor under any readiness figure.
 * @param {import('./lib/common.mjs').Processes} procs
 * @param {string} what
 * @param {string[]} args
 * @param {Record<string, string>} env
 */
async function spawnToExit(procs, what, args, env) {
  const t0 = now();
  const child = procs.spawn(node, args, { stdio: 'ignore', env }, what);
  await within(
    30_000,
    what,
    () =>
      /** @type {Promise<void>} */ (
        new Promise((resolve) => (child.exitInfo ? resolve() : child.once('exit', () => resolve())))
      ),
  );
  return { ms: now() - t0, tools: 0 };
}

await runBench('readiness', opts.deadlineMs, async (procs) => {
  const dir = mkdtempSync(join(tmpdir(), 'qiming-bench-ready-'));
  try {
    const fsRoot = join(dir, 'files');
    await import('node:fs').then((fs) => fs.mkdirSync(fsRoot));
    writeFileSync(join(fsRoot, 'hello.txt'), 'hello\n');
    const memoryEnv = { ...process.env, MEMORY_FILE_PATH: join(dir, 'memory.jsonl') };
    const servers = {
      everything: { command: node, args: [EVERYTHING_SERVER, 'stdio'] },
      memory: { command: node, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
      filesystem: { command: node, args: [FILESYSTEM_SERVER, fsRoot] },
    };
    const bridge = await startBridge(procs, servers, 'bridge');
    const notReady = bridge.ready.servers.filter((s) => s.state !== 'ready');
    if (notReady.length) throw new Error(`bridge servers not ready: ${JSON.stringify(notReady)}`);
    const proxyConfig = {
      mcpServers: Object.fromEntries(
        Object.keys(servers).map((id) => [
          id,
          { type: 'bridge', url: `${bridge.url}/mcp/${id}`, headers: { Authorization: 'Bearer ${MCP_BRIDGE_TOKEN}' } },
        ]),
      ),
    };
    // Every process gets a compile cache, as the app gives its agent (src/main/electron/main.ts sets
    // NODE_COMPILE_CACHE): Node >= 22.1 uses it, Node 20 ignores it. Same for every row.
    const cache = { NODE_COMPILE_CACHE: join(dir, 'compile-cache') };
    const configs = [
      {
        id: 'proxy-warm-bridge',
        label: 'stdio proxy, 3 bridge upstreams (warm bridge)',
        args: cliArgs('proxy-warm-bridge', ['--config', JSON.stringify(proxyConfig)]),
        env: { ...process.env, ...cache, MCP_BRIDGE_TOKEN: bridge.token },
      },
      {
        id: 'everything-cold',
        label: 'server-everything, cold spawn',
        args: servers.everything.args,
        env: { ...process.env, ...cache },
      },
      {
        id: 'memory-cold',
        label: 'server-memory, cold spawn',
        args: servers.memory.args,
        env: { ...memoryEnv, ...cache },
      },
      {
        id: 'filesystem-cold',
        label: 'server-filesystem, cold spawn',
        args: servers.filesystem.args,
        env: { ...process.env, ...cache },
      },
      {
        id: 'node-empty',
        label: 'floor: `node -e 0`, spawn to exit',
        args: ['-e', '0'],
        env: { ...process.env, ...cache },
        exitOnly: true,
      },
      {
        id: 'cli-version',
        label: 'floor: our CLI `--version` (bundle load), spawn to exit',
        args: [CLI, '--version'],
        env: { ...process.env, ...cache },
        exitOnly: true,
      },
    ].map((c) => ({ ...c, ms: /** @type {number[]} */ ([]), tools: 0 }));
    /** @param {(typeof configs)[number]} c */
    const measure = (c) => (c.exitOnly ? spawnToExit(procs, c.id, c.args, c.env) : ready(procs, c.id, c.args, c.env));
    // One discarded spawn each: the first read of each file from disk is not what we measure.
    for (const c of configs) await measure(c);
    for (let r = 0; r < opts.rounds; r++) {
      for (let k = 0; k < configs.length; k++) {
        const c = configs[(k + r) % configs.length];
        const res = await measure(c);
        c.ms.push(res.ms);
        c.tools = res.tools;
      }
      process.stderr.write(`readiness round ${r + 1}/${opts.rounds} done\n`);
    }
    const proxy = configs[0];
    const rows = configs.map((c) => ({
      id: c.id,
      what: c.label,
      tools: c.tools,
      medianMs: round(median(c.ms), 1),
      p90Ms: round(percentile(c.ms, 90), 1),
      minMs: round(Math.min(...c.ms), 1),
      proxyVsThis: c === proxy || c.exitOnly ? null : round(median(proxy.ms) / median(c.ms), 2),
    }));
    const expected = bridge.ready.servers.reduce((n, s) => n + s.tools, 0);
    const result = {
      bench: 'readiness',
      env: environment(),
      options: opts,
      targetMs: TARGET_MS,
      proxyToolsExpected: expected,
      proxyMedianMs: rows[0].medianMs,
      targetMet: (rows[0].medianMs ?? Infinity) <= TARGET_MS && proxy.tools === expected,
      rows,
    };
    // Run under another Node (`npm run bench:readiness:node22`), the results get their own file.
    saveResults(NODE_MAJOR === 20 ? 'readiness' : `readiness.node${NODE_MAJOR}`, result);
    process.stdout.write(`${table(rows)}\n`);
    process.stdout.write(
      `warm-bridge readiness ${rows[0].medianMs} ms (target <= ${TARGET_MS} ms): ${result.targetMet ? 'met' : 'MISSED'}; tools ${proxy.tools}/${expected}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
