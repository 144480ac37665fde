// The built main process (dist/main/main.cjs) started under the fake electron
// (tests/fixtures/fakeElectron.cjs), for the src/main tests that drive the app as a whole: its
// messages (the fake's reports), its stderr, and the parent's commands: `invoke` an IPC
// handler as the app's page (or any frame URL), and `ask` any other command and wait for its result.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import {
  ensureCli,
  FIXTURES,
  killQuietly,
  notRunning,
  ROOT,
  tempDir,
  waitAllNotRunning,
  waitFor,
  writeConfig,
} from './mainHarness.js';

export const MAIN = join(ROOT, 'dist', 'main', 'main.cjs');
/** The app's page as the built main loads it: the frame URL its IPC handlers trust. */
export const PAGE_URL = pathToFileURL(join(ROOT, 'dist', 'renderer', 'index.html')).href;

export type FakeMainMessage = { type: string; [k: string]: unknown };
export type FakeMainResult = { ok: boolean; value?: unknown; error?: string };

export interface FakeMain {
  child: ChildProcess;
  messages: FakeMainMessage[];
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stderr(): string;
  /** Sends a command with a fresh id and waits (`resultMs`, default 15 s) for its result. */
  ask(m: Record<string, unknown>): Promise<FakeMainResult>;
  /** Invokes an IPC handler as the app's page. */
  invoke(channel: string, ...args: unknown[]): Promise<FakeMainResult>;
}

export interface FakeMainOptions {
  /** Arguments after main's path (its command line). */
  args?: string[];
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** How long a command's result is waited for (default 15 s). */
  resultMs?: number;
}

/** Starts main with `FAKE_ELECTRON_ROOT=root` (its userData, logs, ...). */
export function startFakeMain(root: string, options: FakeMainOptions = {}): FakeMain {
  const { args = [], env = {}, resultMs = 15_000 } = options;
  const child = spawn(process.execPath, ['-r', join(FIXTURES, 'fakeElectronLoader.cjs'), MAIN, ...args], {
    env: { ...process.env, FAKE_ELECTRON_ROOT: root, FAKE_ELECTRON_APP_PATH: ROOT, ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const messages: FakeMainMessage[] = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.on('message', (m: FakeMainMessage) => messages.push(m));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let nextId = 1;
  const ask = (m: Record<string, unknown>) => {
    const id = nextId++;
    child.send({ ...m, id });
    return waitFor(
      () => messages.find((x) => x.type === 'result' && x.id === id) as FakeMainResult | undefined,
      resultMs,
      `result of ${JSON.stringify(m).slice(0, 300)} (stderr: ${stderr.slice(-2000)})`,
    );
  };
  return {
    child,
    messages,
    exited,
    stderr: () => stderr,
    ask,
    invoke: (channel, ...args) => ask({ type: 'invoke', channel, url: PAGE_URL, args }),
  };
}

/** A folder for main's FAKE_ELECTRON_ROOT whose `userData/mcp.json` holds `config`, with the CLI and main built. */
export function fakeMainRoot(config: unknown): string {
  ensureCli();
  expect(existsSync(MAIN), 'dist/main/main.cjs (tests/globalSetup.ts builds it)').toBe(true);
  const root = tempDir();
  mkdirSync(join(root, 'userData'), { recursive: true });
  writeConfig(join(root, 'userData', 'mcp.json'), config);
  return root;
}

/** Ends `app` if it still runs and every process of `pids`; resolves with those still running 3 s later. */
export async function stopFakeMain(app: FakeMain | undefined, pids: Iterable<number>): Promise<number[]> {
  if (app && app.child.exitCode === null) killQuietly(app.child.pid);
  for (const p of pids) if (!notRunning(p)) killQuietly(p);
  return waitAllNotRunning([...pids], 3000);
}
