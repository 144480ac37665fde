// Runs the built CLI (dist/proxy/qiming-mcp-stdio-proxy.cjs) as a real process with raw
// access to its stdin/stdout/stderr, plus the bookkeeping every CLI test needs: temp dirs,
// pid files written by tests/fixtures/pidServer.mjs, and a cleanup that kills and checks
// every process a test started.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../../src/proxy/process/processTree.js';

import { CLI, FIXTURES, MEMORY_SERVER, ROOT } from './paths.js';
import { waitFor } from './waitFor.js';
import { waitNoProcess } from './processGone.js';
import { exitOf, exitWithin, type ExitInfo } from './childExit.js';
import { scaled } from './loadScale.js';
export type { ExitInfo } from './childExit.js';

export { CLI, MEMORY_SERVER, ROOT } from './paths.js';
export const PID_SERVER = join(FIXTURES, 'pidServer.mjs');

/** The initialize request every raw session starts with. */
export const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cli-test', version: '1.0.0' } },
} as const;
export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' } as const;

const tempDirs: string[] = [];
const started: ChildProcess[] = [];
const extraPids = new Set<number>();

/** A fresh temp dir, removed by `cleanup()`. */
export function tempDir(prefix = 'qiming-cli-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Registers pids (fixture servers, grandchildren) that `cleanup()` must see gone. */
export function trackPids(...pids: number[]): void {
  for (const p of pids) extraPids.add(p);
}

/** Only ESRCH means gone (the proxy's own check). */
export { isAlive };

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export { waitFor };

export { waitNoProcess };

/** Pids a pidServer fixture recorded, by role. */
export function readPids(file: string): { server: number[]; grandchild: number[] } {
  const out = { server: [] as number[], grandchild: [] as number[] };
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const { role, pid } = JSON.parse(line) as { role: 'server' | 'grandchild'; pid: number };
    out[role].push(pid);
    extraPids.add(pid);
  }
  return out;
}

/** `{"mcpServers": {"<id>": pidServer}}` whose server records its pid(s) to `pidFile`. */
export function pidServerEntry(pidFile: string, extra: string[] = []): { command: string; args: string[] } {
  return { command: process.execPath, args: [PID_SERVER, pidFile, ...extra] };
}

/** server-memory from node_modules, storing its graph in `dir`. */
export function memoryEntry(dir: string): { command: string; args: string[]; env: Record<string, string> } {
  return { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } };
}

export function configJson(servers: Record<string, unknown>): string {
  return JSON.stringify({ mcpServers: servers });
}

/** One running CLI process with raw stdio. */
export class CliProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<ExitInfo>;
  stdout = Buffer.alloc(0);
  stderr = '';
  exit?: ExitInfo;

  constructor(args: string[], opts: { env?: NodeJS.ProcessEnv; stdio?: SpawnOptions['stdio']; cwd?: string } = {}) {
    this.child = spawn(process.execPath, [CLI, ...args], {
      stdio: opts.stdio ?? ['pipe', 'pipe', 'pipe'],
      env: opts.env ?? process.env,
      cwd: opts.cwd ?? ROOT,
    });
    started.push(this.child);
    this.child.stdout?.on('data', (d: Buffer) => (this.stdout = Buffer.concat([this.stdout, d])));
    this.child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')));
    // A test may close our end of a pipe on purpose; that must not crash the test runner.
    this.child.stdin?.on('error', () => {});
    this.child.stdout?.on('error', () => {});
    this.exited = exitOf(this.child, (exit) => (this.exit = exit));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Writes raw bytes/text to the CLI's stdin. */
  write(data: string | Buffer): void {
    this.child.stdin!.write(data);
  }

  /** Writes one newline-framed message. */
  send(msg: unknown): void {
    this.write(`${JSON.stringify(msg)}\n`);
  }

  /** Complete stdout lines so far. */
  lines(): string[] {
    const text = this.stdout.toString('utf8');
    return text.split('\n').slice(0, -1);
  }

  /** Parsed newline-framed stdout messages so far. */
  messages(): Array<Record<string, any>> {
    return this.lines()
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, any>);
  }

  /** Waits for the reply with this id (newline framing). */
  async reply(id: unknown, timeoutMs = 15_000): Promise<Record<string, any>> {
    return waitFor(
      () => this.messages().find((m) => m.id === id && (m.result !== undefined || m.error !== undefined)),
      scaled(timeoutMs),
      `reply ${JSON.stringify(id)} (stderr: ${this.stderr.slice(-800)})`,
    );
  }

  /** initialize + initialized; returns the initialize result. */
  async initialize(): Promise<Record<string, any>> {
    this.send(INIT);
    const r = await this.reply(1);
    this.send(INITIALIZED);
    return r.result;
  }

  /** Waits for the process to exit; throws after `timeoutMs`. */
  waitExit(timeoutMs: number): Promise<ExitInfo> {
    return exitWithin(
      this.exited,
      timeoutMs,
      () => `CLI ${this.pid} did not exit within ${timeoutMs} ms; stderr:\n${this.stderr.slice(-2000)}`,
    );
  }
}

/** Runs the CLI to completion with `input` on stdin (then EOF). */
export async function runCli(
  args: string[],
  opts: { input?: string | Buffer; env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = new CliProcess(args, { env: opts.env, cwd: opts.cwd });
  if (opts.input !== undefined) p.write(opts.input);
  p.child.stdin!.end();
  const { code } = await p.waitExit(opts.timeoutMs ?? 15_000);
  return { code, stdout: p.stdout.toString('utf8'), stderr: p.stderr };
}

/**
 * Kills whatever a test left running (CLI processes, recorded fixture pids), then checks
 * that every one of them is really gone, and removes the temp dirs.
 */
export async function cleanup(): Promise<void> {
  const pids = new Set(extraPids);
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await Promise.race([gone, sleep(5000)]);
    }
    pids.add(child.pid!);
  }
  extraPids.clear();
  const lingering: number[] = [];
  for (const pid of pids) {
    if (await waitNoProcess(pid, 5000)) continue;
    lingering.push(pid);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  if (lingering.length) throw new Error(`processes still alive after the test: ${lingering.join(', ')}`);
}
