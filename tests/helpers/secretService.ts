// A private Secret Service for a test file: a session D-Bus (dbus-run-session) with
// gnome-keyring-daemon's secrets component, its login keyring unlocked with a throwaway
// password, all under a temporary HOME, in a process group of its own. `stop()` ends the
// group (SIGTERM, SIGKILL after 5 s), checks that no process of it is left (by pid, and by
// the temporary HOME in any process's environment) and removes the folder.
// `useSecretService()` gives a test file one, started before its tests and stopped after.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { FIXTURES, ROOT } from './paths.js';
import { waitFor } from './waitFor.js';
import { scaled } from './loadScale.js';

const KEYRING_ITEM = join(FIXTURES, 'keyringItem.cjs');

export interface SecretService {
  /** What a process needs to reach it: DBUS_SESSION_BUS_ADDRESS, HOME and the XDG folders. */
  readonly env: Record<string, string>;
  /** Stores `value` under `name` (service qiming-mcp-runtime), from a child process. */
  set(name: string, value: string): void;
  /** The value under `name`, or undefined. */
  get(name: string): string | undefined;
  stop(): Promise<void>;
}

/** Processes whose environment names `home`: what the service started, wherever it went. */
function processesOf(home: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${d}/environ`, 'latin1').split('\0').includes(`HOME=${home}`)) out.push(Number(d));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startSecretService(): Promise<SecretService> {
  const home = mkdtempSync(join(tmpdir(), 'qiming-keyring-'));
  const runtime = join(home, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  const base = {
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_RUNTIME_DIR: runtime,
  };
  const child: ChildProcess = spawn(
    'dbus-run-session',
    [
      '--',
      'sh',
      '-c',
      // The daemon stays in the foreground (a daemonised one would leave the group).
      'printf %s test | gnome-keyring-daemon --unlock --components=secrets --foreground >/dev/null 2>&1 &' +
        ' echo "BUS=$DBUS_SESSION_BUS_ADDRESS"; wait',
    ],
    {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...base },
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const pgid = child.pid!;
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const stop = async () => {
    if (groupAlive(pgid)) process.kill(-pgid, 'SIGTERM');
    try {
      await waitFor(() => !groupAlive(pgid) && processesOf(home).length === 0, 5_000, 'the Secret Service to end');
    } catch {
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
      for (const pid of processesOf(home)) process.kill(pid, 'SIGKILL');
      await waitFor(
        () => !groupAlive(pgid) && processesOf(home).length === 0,
        5_000,
        'the Secret Service to be killed',
      );
    }
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const bus = await waitFor(() => /^BUS=(.+)$/m.exec(out)?.[1], scaled(15_000), 'the session bus address');
    const env = { ...base, DBUS_SESSION_BUS_ADDRESS: bus };
    const item = (args: string[], input?: string) =>
      spawnSync(process.execPath, [KEYRING_ITEM, ...args], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        input,
        encoding: 'utf8',
        timeout: 15_000,
      });
    await waitFor(() => item(['probe']).status === 0, scaled(20_000), 'the Secret Service to answer');
    return {
      env,
      set(name, value) {
        const r = item(['set', name], value);
        if (r.status !== 0) throw new Error(`cannot store ${name}: ${r.stderr}`);
      },
      get(name) {
        const r = item(['get', name]);
        if (r.status !== 0) throw new Error(`cannot read ${name}: ${r.stderr}`);
        return r.stdout === '' ? undefined : r.stdout;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * This file's Secret Service: started in a `beforeAll`, stopped in an `afterAll`. The object
 * returned stands for it in the tests (using it outside them throws).
 */
export function useSecretService(): SecretService {
  let started: SecretService | undefined;
  const it = (): SecretService => {
    if (!started) throw new Error('the Secret Service is used outside the tests that started it');
    return started;
  };
  beforeAll(async () => {
    started = await startSecretService();
  }, 60_000);
  afterAll(async () => {
    await started?.stop();
  }, 30_000);
  return {
    get env() {
      return it().env;
    },
    set: (name, value) => it().set(name, value),
    get: (name) => it().get(name),
    stop: () => it().stop(),
  };
}
