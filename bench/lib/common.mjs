// Shared helpers of the benchmarks: options, statistics, machine facts, free ports, and the
// process registry that ends every process a benchmark started, by pid, and proves it.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BENCH = join(ROOT, 'bench');
export const CLI = process.env.QIMING_PROXY_CLI ?? join(ROOT, 'dist', 'proxy', 'qiming-mcp-stdio-proxy.cjs');
/** Another build of the CLI (an earlier commit's), measured beside CLI in the same run as the `before-*` paths. */
export const CLI_BEFORE = process.env.QIMING_PROXY_CLI_BEFORE;
export const ECHO_SERVER = join(BENCH, 'fixtures', 'echoServer.mjs');
export const GUARD = join(BENCH, 'lib', 'loopbackOnly.cjs');
export const RAW_RELAY = join(BENCH, 'fixtures', 'rawRelay.mjs');
export const PARSE_RELAY = join(BENCH, 'fixtures', 'parseRelay.mjs');
export const RAW_HTTP_HOP = join(BENCH, 'fixtures', 'rawHttpHop.mjs');
const MCP = join(ROOT, 'node_modules', '@modelcontextprotocol');
export const EVERYTHING_SERVER = join(MCP, 'server-everything', 'dist', 'index.js');
export const MEMORY_SERVER = join(MCP, 'server-memory', 'dist', 'index.js');
export const FILESYSTEM_SERVER = join(MCP, 'server-filesystem', 'dist', 'index.js');
export const PEERS = {
  supergateway: join(ROOT, 'node_modules', 'supergateway', 'dist', 'index.js'),
  mcpProxy: join(ROOT, 'node_modules', 'mcp-proxy', 'dist', 'bin', 'mcp-proxy.mjs'),
  mcpHub: join(ROOT, 'node_modules', 'mcp-hub', 'dist', 'cli.js'),
};

/**
 * `--name value` / `--flag` options with defaults; `--quick` picks the quick defaults.
 * @template {Record<string, unknown>} T
 * @param {T} full
 * @param {Partial<T>} [quick]
 * @returns {T & { quick: boolean } & Record<string, unknown>} the defaults, and any other `--name value` given
 */
export function options(full, quick) {
  const argv = process.argv.slice(2);
  const isQuick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
  const result = { ...(isQuick ? { ...full, ...quick } : full), quick: isQuick };
  /** @type {Record<string, unknown>} */
  const out = result;
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-zA-Z][\w-]*)(?:=(.*))?$/.exec(argv[i]);
    if (!m || m[1] === 'quick') continue;
    const key = m[1].replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    let value = m[2];
    if (value === undefined && argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) value = argv[++i];
    if (value === undefined) out[key] = true;
    else out[key] = typeof out[key] === 'number' ? Number(value) : value;
  }
  return result;
}

/** @param {number} ms */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const now = () => performance.now();

/**
 * Nearest-rank percentile of unsorted numbers (p in 0..100).
 * @param {number[]} values
 * @param {number} p
 */
export function percentile(values, p) {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
/** @param {number[]} values */
export const median = (values) => percentile(values, 50);

/**
 * @param {number | null | undefined} n
 * @returns {number | null}
 */
export function round(n, digits = 2) {
  if (n === undefined || n === null || Number.isNaN(n)) return null;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/**
 * Runs `fn` with a deadline; rejects with a clear message when it passes.
 * @template T
 * @param {number} ms
 * @param {string} what
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function within(ms, what, fn) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  try {
    return await Promise.race([
      fn(),
      /** @type {Promise<never>} */ (
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
        })
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A free TCP port on 127.0.0.1 (for peers that need a fixed --port).
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

/**
 * Resolves when 127.0.0.1:port accepts a connection; bounded.
 * @param {number} port
 * @param {number} timeoutMs
 */
export async function waitPort(port, timeoutMs, isDead = () => false) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const sock = net.connect({ port, host: '127.0.0.1' });
      sock.once('connect', () => (sock.destroy(), resolve(true)));
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    if (isDead()) throw new Error(`process exited before listening on port ${port}`);
    if (Date.now() > deadline) throw new Error(`port ${port} not listening after ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** @param {string} name */
function pkgVersion(name) {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'missing';
  }
}

/** Machine, date, runtime and package versions, written into every result file. */
export function environment() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  let nproc = os.availableParallelism?.() ?? os.cpus().length;
  try {
    nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim()) || nproc;
  } catch {
    // nproc missing: keep Node's count.
  }
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // Not a git checkout.
  }
  const self = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  return {
    date: new Date().toISOString(),
    machine: {
      nproc,
      cpuModel: model,
      memoryGiB: round(os.totalmem() / 2 ** 30, 1),
      kernel: os.release(),
      arch: process.arch,
    },
    loadAverage: os.loadavg().map((x) => round(x, 2)),
    node: process.version,
    packages: {
      [self.name]: `${self.version} (commit ${commit}, CLI built ${existsSync(CLI) ? statSync(CLI).mtime.toISOString() : 'missing'})`,
      '@modelcontextprotocol/sdk': pkgVersion('@modelcontextprotocol/sdk'),
      supergateway: pkgVersion('supergateway'),
      'mcp-proxy': pkgVersion('mcp-proxy'),
      'mcp-hub': pkgVersion('mcp-hub'),
      '@modelcontextprotocol/server-everything': pkgVersion('@modelcontextprotocol/server-everything'),
      '@modelcontextprotocol/server-memory': pkgVersion('@modelcontextprotocol/server-memory'),
      '@modelcontextprotocol/server-filesystem': pkgVersion('@modelcontextprotocol/server-filesystem'),
      chokidar: pkgVersion('chokidar'),
    },
  };
}

/**
 * Writes bench/results/<name>.json and prints a one-line pointer.
 * @param {string} name
 * @param {{ options?: { quick?: boolean } } & Record<string, unknown>} data
 */
export function saveResults(name, data) {
  const dir = join(BENCH, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}${data.options?.quick ? '.quick' : ''}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  process.stderr.write(`results written to ${file}\n`);
  return file;
}

/**
 * A markdown table from rows of objects (columns in the order of the first row's keys).
 * @param {Record<string, unknown>[]} rows
 */
export function table(rows, columns = Object.keys(rows[0] ?? {})) {
  /** @param {unknown} v */
  const fmt = (v) => (v === undefined || v === null ? '' : String(v));
  const lines = [`| ${columns.join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`];
  for (const r of rows) lines.push(`| ${columns.map((c) => fmt(r[c])).join(' | ')} |`);
  return lines.join('\n');
}

// ---- processes -----------------------------------------------------------------------

/** ppid of every live process, from /proc. */
function parentMap() {
  const map = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'latin1');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      map.set(Number(d), Number(rest[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  return map;
}

/**
 * Every live descendant of `pid` (children, grandchildren...).
 * @param {number} pid
 */
export function descendants(pid) {
  const parents = parentMap();
  /** @type {number[]} */
  const out = [];
  const queue = [pid];
  while (queue.length) {
    const p = queue.shift();
    for (const [child, ppid] of parents) if (ppid === p) (out.push(child), queue.push(child));
  }
  return out;
}

/**
 * True when `pid` no longer runs: ESRCH, or a zombie. A zombie has exited and waits for a
 * reaper; an orphan adopted by a pid 1 that never reaps (some sandboxes) stays one forever.
 * @param {number} pid
 */
export function isGone(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/**
 * The pids of `pids` still running after at most `timeoutMs` (empty when all are gone).
 * @param {number[]} pids
 * @param {number} timeoutMs
 */
export async function waitGone(pids, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = pids.filter((p) => !isGone(p));
    if (!left.length || Date.now() > deadline) return left;
    await sleep(10);
  }
}

/**
 * `VmRSS` and `VmHWM` (peak) of a process in KiB, or undefined when it is gone.
 * @param {number | undefined} pid
 */
export function memoryOf(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'latin1');
    return { rssKiB: Number(/VmRSS:\s+(\d+)/.exec(s)?.[1]), hwmKiB: Number(/VmHWM:\s+(\d+)/.exec(s)?.[1]) };
  } catch {
    return undefined;
  }
}

const CLK_TCK = 100; // Linux USER_HZ on every mainstream kernel

/**
 * CPU time (user + system) a process has used, in ms (0 when gone); 10 ms resolution.
 * @param {number | undefined} pid
 */
export function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
  } catch {
    return 0;
  }
}

/**
 * Resets the peak RSS (VmHWM) of a process to its current RSS (Linux clear_refs 5).
 * @param {number | undefined} pid
 */
export function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Every process a benchmark starts is registered here, with the descendants seen in
 * snapshots. `endAll()` sends SIGTERM to each root by pid, waits, SIGKILLs what is left
 * (roots and every descendant ever seen), and returns the pids still alive (must be none).
 */
export class Processes {
  /** @type {Set<number>} */
  roots = new Set();
  /** @type {Set<number>} */
  seen = new Set();
  /** @type {Map<number, string> | undefined} */
  labels;

  /**
   * @template {number | undefined} P
   * @param {P} pid
   * @returns {P}
   */
  add(pid, label = '') {
    if (pid) {
      this.roots.add(pid);
      this.seen.add(pid);
      this.labels ??= new Map();
      this.labels.set(pid, label);
    }
    return pid;
  }

  /** Records the current descendants of every root (call after start-up and before the end). */
  snapshot() {
    for (const r of this.roots) for (const d of descendants(r)) this.seen.add(d);
  }

  /**
   * Spawns, registers and returns the child (stdio defaults: ignore/pipe/pipe).
   * @param {string} command
   * @param {string[]} args
   * @param {import('node:child_process').SpawnOptions} [opts]
   * @returns {BenchChild}
   */
  spawn(command, args, opts = {}, label = '') {
    const child = /** @type {BenchChild} */ (spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts }));
    this.add(child.pid, label || `${command} ${args[0] ?? ''}`);
    child.on('error', () => {});
    child.exitInfo = undefined;
    child.on('exit', (code, signal) => (child.exitInfo = { code, signal }));
    return child;
  }

  /**
   * Ends one root (and its descendants) by pid; returns the pids left.
   * @param {number} pid
   */
  async end(pid, graceMs = 3000) {
    const tree = [pid, ...descendants(pid)];
    for (const p of tree) this.seen.add(p);
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
    let left = await waitGone(tree, graceMs);
    for (const p of left) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    if (left.length) left = await waitGone(left, 2000);
    this.roots.delete(pid);
    return left;
  }

  async endAll(graceMs = 3000) {
    this.snapshot();
    /** @type {number[]} */
    const killedAfterGrace = [];
    await Promise.all(
      [...this.roots].map(async (r) => {
        const left = await this.end(r, graceMs);
        killedAfterGrace.push(...left);
      }),
    );
    // Descendants that left their parent's tree (orphans, other groups).
    let stray = [...this.seen].filter((p) => !isGone(p));
    for (const p of stray) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    const left = await waitGone([...this.seen], 3000);
    return { started: this.seen.size, strayAfterRootsEnded: stray.length, left };
  }
}

/**
 * Runs a benchmark body with a hard deadline and the final process check.
 * @param {string} name
 * @param {number} deadlineMs
 * @param {(procs: Processes) => Promise<void>} body
 */
export async function runBench(name, deadlineMs, body) {
  const procs = new Processes();
  // The SDK's HTTP client transports pass one long-lived AbortSignal to every fetch, and
  // undici drops its listener only when the request is garbage-collected: with 32 calls in
  // flight the count passes undici's limit of 1500 and Node warns once per call. Counted
  // and reported once instead of flooding the output (docs/BENCHMARKS.md discusses it).
  let abortWarnings = 0;
  process.removeAllListeners('warning');
  process.on('warning', (w) => {
    if (w.name === 'MaxListenersExceededWarning' && /AbortSignal/.test(w.message)) abortWarnings++;
    else process.stderr.write(`${w.name}: ${w.message}\n`);
  });
  let failed = false;
  const timer = setTimeout(async () => {
    process.stderr.write(`${name}: deadline of ${deadlineMs} ms passed; ending every process\n`);
    const r = await procs.endAll(500);
    process.stderr.write(`${name}: processes left: ${r.left.length}\n`);
    process.exit(124);
  }, deadlineMs);
  try {
    await body(procs);
  } catch (err) {
    failed = true;
    process.stderr.write(`${name} failed: ${/** @type {Error | undefined} */ (err)?.stack ?? err}\n`);
  } finally {
    const r = await procs.endAll();
    clearTimeout(timer);
    if (abortWarnings)
      process.stderr.write(
        `${name}: ${abortWarnings} MaxListenersExceededWarning(s) on the SDK HTTP client's AbortSignal (bench client side)\n`,
      );
    process.stderr.write(
      `${name}: ${r.started} processes started, ${r.left.length} left${r.left.length ? `: ${r.left.join(', ')}` : ''}\n`,
    );
    if (r.left.length) failed = true;
  }
  process.exitCode = failed ? 1 : 0;
}

/**
 * Collects a child stream's last lines (for error messages).
 * @param {import('node:stream').Readable | null | undefined} stream
 */
export function tail(stream, keep = 20) {
  /** @type {string[]} */
  const lines = [];
  let partial = '';
  stream?.setEncoding?.('utf8');
  stream?.on('data', (/** @type {string} */ d) => {
    const parts = (partial + d).split('\n');
    partial = parts.pop() ?? '';
    for (const l of parts) {
      lines.push(l);
      if (lines.length > keep) lines.shift();
    }
  });
  return { text: () => [...lines, partial].filter(Boolean).join('\n') };
}

/**
 * Reads the first line of a stream as JSON (the bridge's ready line, the fixture's port).
 * @param {import('node:stream').Readable} stream
 * @param {number} timeoutMs
 * @param {string} what
 * @param {(line: any) => boolean} [predicate]
 * @returns {Promise<any>}
 */
export function firstJsonLine(stream, timeoutMs, what, predicate = () => true) {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(
      () => (cleanup(), reject(new Error(`${what}: no line within ${timeoutMs} ms`))),
      timeoutMs,
    );
    /** @param {string} d */
    const onData = (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          const v = JSON.parse(line);
          if (predicate(v)) return void (cleanup(), resolve(v));
        } catch {
          // Not JSON: keep reading.
        }
      }
    };
    const onEnd = () => (cleanup(), reject(new Error(`${what}: stream ended before the line`)));
    const cleanup = () => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
    };
    stream.setEncoding('utf8');
    stream.on('data', onData);
    stream.on('end', onEnd);
  });
}

/**
 * A child started by `Processes.spawn`: stdout and stderr are piped (the default), and
 * `exitInfo` is set when it exits.
 * @typedef {import('node:child_process').ChildProcess & {
 *   stdout: import('node:stream').Readable;
 *   stderr: import('node:stream').Readable;
 *   exitInfo?: { code: number | null; signal: NodeJS.Signals | null };
 * }} BenchChild
 */
