// Small pieces the bridge tests share: paths of the CLI, fixtures and real servers, config
// entries, polling, process liveness, temp dirs and pids to check at the end, raw HTTP.
//
// "Gone" means kill(pid, 0) fails with ESRCH, or the process is a zombie: it has exited and
// only waits for a reaper. A server orphaned by a SIGKILLed bridge (or a grandchild behind
// `sh`) is adopted by pid 1, and pid 1 in some sandboxes (this one included) never reaps,
// so its exited orphans stay zombies forever; on a normal system they vanish at once.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

import { CLI, EVERYTHING_SERVER, FIXTURES, MEMORY_SERVER, ROOT } from './paths.js';
import { waitFor } from './waitFor.js';
import { notRunning, waitNotRunning } from './processGone.js';

export { CLI, EVERYTHING_SERVER, FILESYSTEM_SERVER, FIXTURES, MEMORY_SERVER, ROOT } from './paths.js';

let cliSnapshot: string | undefined;

/**
 * The built CLI, copied once per test file into a private temp dir (with the panel files
 * beside it, as in dist/) and run from there. Any vitest run rebuilds dist/ in its
 * globalSetup, and esbuild rewrites the file in place: a bridge spawned at that moment
 * would load an empty or half-written file (an empty one "runs" and exits 0). The copy
 * is taken only once it compiles.
 */
export function builtCli(): string {
  if (cliSnapshot) return cliSnapshot;
  if (!existsSync(CLI))
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), 'proxy'], { cwd: ROOT, stdio: 'inherit' });
  const deadline = Date.now() + 30_000;
  // The CLI and the files beside it that it loads on demand (scripts/buildProxy.mjs).
  const proxyDir = dirname(CLI);
  let sources: [string, string][] = [];
  for (;;) {
    try {
      sources = readdirSync(proxyDir)
        .filter((f) => f.endsWith('.cjs'))
        .map((f) => [f, readFileSync(join(proxyDir, f), 'utf8')]);
      for (const [f, source] of sources) {
        if (source.length < 1000) throw new Error(`${f}: only ${source.length} bytes`);
        new Script(source.replace(/^#!.*/, ''), { filename: join(proxyDir, f) });
      }
      if (!sources.some(([f]) => join(proxyDir, f) === CLI)) throw new Error(`no ${CLI}`);
      break;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${proxyDir} does not compile: ${(err as Error).message}`);
      execFileSync('sleep', ['0.2']);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'qiming-bridge-cli-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'proxy'));
  for (const [f, source] of sources) writeFileSync(join(dir, 'proxy', f), source);
  const panel = join(ROOT, 'dist', 'renderer');
  if (existsSync(panel)) cpSync(panel, join(dir, 'renderer'), { recursive: true });
  // The native modules the bundles leave out (@napi-rs/keyring) are found as in the package: in node_modules beside dist/.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  cliSnapshot = join(dir, 'proxy', basename(CLI));
  return cliSnapshot;
}

/**
 * Removes the CLI snapshot (the next `builtCli()` takes a new one). vitest ends its workers
 * without running 'exit' handlers, so the snapshot's folder is removed here, by the cleanup.
 */
export function releaseCliSnapshot(): void {
  if (!cliSnapshot) return;
  rmSync(dirname(dirname(cliSnapshot)), { recursive: true, force: true });
  cliSnapshot = undefined;
}

/** Pids a test started some other way (a bridge behind an intermediate parent, say). */
const loosePids = new Set<number>();
const tempDirs: string[] = [];

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export { waitFor };

/** "Gone" for the bridge tests: not running (ESRCH, or a zombie waiting for a reaper; see the header). */
export { notRunning, waitNotRunning };

/** Registers pids that `cleanupBridges()` must find gone (and kills if not). */
export function trackPids(...pids: (number | undefined)[]): void {
  for (const p of pids) if (p !== undefined) loosePids.add(p);
}

/** A fresh temp dir, removed by `cleanupBridges()` (through `releaseTracked()`). */
export function tempDir(prefix = 'qiming-bridge-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

export function fixture(name: string): string {
  return join(FIXTURES, name);
}

/** Pids appended (one per line) to a fixture's pid file. */
export function readPidFile(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map(Number);
}

/** A config entry running a node script (a fixture or a real server from node_modules). */
export function nodeEntry(
  script: string,
  args: string[] = [],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { command: process.execPath, args: [script, ...args], ...extra };
}

export function everythingEntry(): Record<string, unknown> {
  return nodeEntry(EVERYTHING_SERVER);
}

export function memoryEntry(dir: string): Record<string, unknown> {
  return nodeEntry(MEMORY_SERVER, [], { env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } });
}

/** One request with full control over the headers (fetch refuses to set Host). */
export function rawRequest(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/**
 * A request to a bridge's management routes as the panel sends it: the bridge's Host and
 * Origin, its bearer token, a JSON body (a string is sent as is) with its length; `headers`
 * override any of them.
 */
export function panelRequest(
  bridge: { port: number; bearer: string },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  // Node frames no body of a GET or DELETE by itself: say its length, as browsers do.
  return rawRequest(bridge.port, {
    method,
    path,
    headers: {
      ...(text !== undefined ? { 'Content-Length': String(Buffer.byteLength(text)) } : {}),
      Host: `127.0.0.1:${bridge.port}`,
      Authorization: `Bearer ${bridge.bearer}`,
      Origin: `http://127.0.0.1:${bridge.port}`,
      'Content-Type': 'application/json',
      ...headers,
    },
    body: text,
  });
}

/** The JSON body of an `initialize` POST. */
export function initializeBody(id = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
}

export const MCP_POST_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

/**
 * Checks that every pid given to `trackPids()` is gone (SIGKILLing survivors, group too)
 * and removes the temp dirs; returns the problems found.
 */
export async function releaseTracked(): Promise<string[]> {
  const problems: string[] = [];
  for (const pid of [...loosePids]) {
    loosePids.delete(pid);
    if (await waitNotRunning(pid, 6000)) continue;
    problems.push(`pid ${pid} is still alive`);
    killHard(pid);
  }
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  return problems;
}

/** SIGKILL to the process group `pid` leads (if any) and to the process. */
export function killHard(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}
