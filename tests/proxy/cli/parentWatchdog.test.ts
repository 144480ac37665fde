import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { isProcessAlive, startParentWatchdog } from '../../../src/proxy/cli/parentWatchdog.js';

const children: ChildProcess[] = [];
/**
 * How long a watchdog polling every 10-20 ms is watched for a call it must not make: one more
 * call, or a call from a stopped watchdog, would come at its next interval, within this.
 */
const INTERVALS_WINDOW_MS = 100;
const stops: (() => void)[] = [];

function sleeper(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 1e6)'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

async function killAndReap(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await within(exited, 5000, 'child exit');
  }
  expect(() => process.kill(child.pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
}

let tmpDir: string | undefined;

/** The watchdog compiled to a plain .mjs file, for child processes (Node 20 runs no TS). */
function compiledWatchdog(): string {
  tmpDir ??= mkdtempSync(join(tmpdir(), 'watchdog-'));
  chmodSync(tmpDir, 0o755); // readable by the `nobody` probe
  const file = join(tmpDir, 'parentWatchdog.mjs');
  // Bundled: it imports the /proc reader (src/proxy/process/procStat.ts).
  const entry = join(import.meta.dirname, '../../../src/proxy/cli/parentWatchdog.ts');
  const out = buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', write: false });
  writeFileSync(file, out.outputFiles[0]!.text, { mode: 0o644 });
  return file;
}

afterAll(() => {
  if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
});

afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  for (const child of children.splice(0)) await killAndReap(child);
});

describe('isProcessAlive', () => {
  it('is true for a live process and false once it is gone (ESRCH)', async () => {
    const child = sleeper();
    expect(isProcessAlive(child.pid!)).toBe(true);
    expect(isProcessAlive(process.pid)).toBe(true);
    await killAndReap(child);
    expect(isProcessAlive(child.pid!)).toBe(false);
  });

  it('never throws and treats pids that name no single process as not alive', () => {
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(isProcessAlive(pid)).toBe(false);
  });

  it('treats EPERM (a process owned by someone else) as alive', () => {
    if (process.getuid?.() !== 0) {
      // Not root: pid 1 belongs to root, so kill(1, 0) really fails with EPERM.
      expect(() => process.kill(1, 0)).toThrow(expect.objectContaining({ code: 'EPERM' }));
      expect(isProcessAlive(1)).toBe(true);
      return;
    }
    // Root: run the real function in a child that drops to `nobody`, where kill(1, 0) is EPERM.
    const probe = `import { isProcessAlive } from ${JSON.stringify(compiledWatchdog())};
let code = 'none';
try { process.kill(1, 0); } catch (e) { code = e.code; }
process.stdout.write(JSON.stringify({ code, alive: isProcessAlive(1), uid: process.getuid() }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe], {
      uid: 65534,
      gid: 65534,
      timeout: 10_000,
    }).toString();
    expect(JSON.parse(out)).toEqual({ code: 'EPERM', alive: true, uid: 65534 });
  });
});

describe('startParentWatchdog', () => {
  it('calls onDead once after the watched process is SIGKILLed', async () => {
    const child = sleeper();
    let calls = 0;
    let resolveDead!: () => void;
    const dead = new Promise<void>((r) => (resolveDead = r));
    // The real check, counted: three checks of the live process, and no call.
    let checks = 0;
    const isAlive = (pid: number) => (checks++, isProcessAlive(pid));
    stops.push(
      startParentWatchdog({ pid: child.pid!, intervalMs: 20, isAlive, onDead: () => (calls++, resolveDead()) }),
    );
    await within(
      (async () => {
        while (checks < 3) await new Promise((r) => setTimeout(r, 5));
      })(),
      5000,
      'three checks',
    );
    expect(calls).toBe(0); // alive while it runs
    await killAndReap(child);
    await within(dead, 5000, 'onDead');
    await new Promise((r) => setTimeout(r, INTERVALS_WINDOW_MS));
    expect(calls).toBe(1);
  });

  it('stop() ends polling: no onDead after the process dies', async () => {
    const child = sleeper();
    let calls = 0;
    const stop = startParentWatchdog({ pid: child.pid!, intervalMs: 10, onDead: () => calls++ });
    // A control on the same process, left running: once it has seen the death, so would the
    // stopped one have, several intervals over, had it kept polling.
    let resolveControl!: () => void;
    const control = new Promise<void>((r) => (resolveControl = r));
    stops.push(startParentWatchdog({ pid: child.pid!, intervalMs: 10, onDead: () => resolveControl() }));
    stop();
    stop();
    await killAndReap(child);
    await within(control, 5000, 'the control watchdog');
    await new Promise((r) => setTimeout(r, INTERVALS_WINDOW_MS));
    expect(calls).toBe(0);
  });

  it('uses the injected check, and a check that throws counts as alive', async () => {
    const seen: number[] = [];
    let mode: 'alive' | 'throw' | 'dead' = 'throw';
    let resolveDead!: () => void;
    const dead = new Promise<void>((r) => (resolveDead = r));
    const isAlive = (pid: number): boolean => {
      seen.push(pid);
      if (mode === 'throw') throw Object.assign(new Error('EPERM'), { code: 'EPERM' });
      return mode === 'alive';
    };
    stops.push(startParentWatchdog({ pid: 424242, intervalMs: 10, isAlive, onDead: resolveDead }));
    await within(
      (async () => {
        while (seen.length < 3) await new Promise((r) => setTimeout(r, 5));
      })(),
      5000,
      'checks',
    );
    mode = 'alive';
    const before = seen.length;
    await within(
      (async () => {
        while (seen.length < before + 3) await new Promise((r) => setTimeout(r, 5));
      })(),
      5000,
      'more checks',
    );
    mode = 'dead';
    await within(dead, 5000, 'onDead');
    expect(new Set(seen)).toEqual(new Set([424242]));
  });

  it('its timer does not keep a process alive, and a live parent is never reported dead', async () => {
    const mod = JSON.stringify(compiledWatchdog());
    // Unref'd: with nothing else to do the child exits at once.
    const idle = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { startParentWatchdog } from ${mod};
startParentWatchdog({ pid: process.ppid, intervalMs: 50, onDead() { process.exit(3); } });`,
      ],
      { stdio: 'ignore' },
    );
    children.push(idle);
    // Kept alive 400 ms: about 20 checks of its (living) parent, none may fire.
    const busy = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { startParentWatchdog } from ${mod};
startParentWatchdog({ pid: process.ppid, intervalMs: 20, onDead() { process.exit(3); } });
setTimeout(() => {}, 400);`,
      ],
      { stdio: 'ignore' },
    );
    children.push(busy);
    const [idleCode] = (await within(once(idle, 'exit'), 10_000, 'idle child exit')) as [number | null];
    const [busyCode] = (await within(once(busy, 'exit'), 10_000, 'busy child exit')) as [number | null];
    expect(idleCode).toBe(0);
    expect(busyCode).toBe(0);
  });

  it('a grandchild watching its parent exits when that parent is SIGKILLed', async () => {
    const mod = JSON.stringify(compiledWatchdog());
    // The grandchild reports ready only once it watches, so the kill cannot come first
    // (a child started after its parent died would watch pid 1 instead).
    const grandchild = `import { startParentWatchdog } from ${mod};
startParentWatchdog({ pid: process.ppid, intervalMs: 20, onDead() { process.exit(0); } });
process.stdout.write('ready ' + process.pid + '\\n');
setInterval(() => {}, 1000);`;
    const middleScript = `const { spawn } = require('node:child_process');
spawn(process.execPath, ['--input-type=module', '-e', ${JSON.stringify(grandchild)}], { stdio: ['ignore', 'inherit', 'ignore'] });
setInterval(() => {}, 1000);`;
    const middle = spawn(process.execPath, ['-e', middleScript], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(middle);
    let out = '';
    middle.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = Date.now() + 10_000;
    while (!/ready \d+\n/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const gpid = Number(/ready (\d+)\n/.exec(out)?.[1]);
    expect(gpid).toBeGreaterThan(0);
    expect(isProcessAlive(gpid)).toBe(true);
    await killAndReap(middle);
    try {
      // Exited and reaped (here by pid 1, which may take a moment).
      const until = Date.now() + 15_000;
      while (isProcessAlive(gpid) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(() => process.kill(gpid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    } finally {
      if (isProcessAlive(gpid)) process.kill(gpid, 'SIGKILL');
    }
  });

  it('a watched parent that died but was never reaped (zombie) is detected by the re-parenting', async () => {
    if (process.platform !== 'linux') return;
    const mod = JSON.stringify(compiledWatchdog());
    const grandchild = `import { startParentWatchdog } from ${mod};
startParentWatchdog({ pid: process.ppid, intervalMs: 20, onDead() { process.exit(0); } });
process.stdout.write('ready ' + process.pid + ' ' + process.ppid + '\\n');
setInterval(() => {}, 1000);`;
    const middle = `require('node:child_process').spawn(process.execPath, ['--input-type=module', '-e', process.env.GRAND], { stdio: ['ignore', 'inherit', 'ignore'] });
setInterval(() => {}, 1000);`;
    // `exec sleep` replaces the shell: the middle node's parent then never reaps it, so
    // once killed the middle stays a zombie and still answers kill(pid, 0).
    const shell = spawn('sh', ['-c', `"${process.execPath}" -e "$MIDDLE" & exec sleep 1000`], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, MIDDLE: middle, GRAND: grandchild },
    });
    children.push(shell);
    let out = '';
    shell.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = Date.now() + 10_000;
    while (!/ready \d+ \d+\n/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const [, g, m] = /ready (\d+) (\d+)\n/.exec(out) ?? [];
    const gpid = Number(g);
    const mpid = Number(m);
    expect(gpid).toBeGreaterThan(0);
    try {
      process.kill(mpid, 'SIGKILL');
      const state = () => readFileSync(`/proc/${mpid}/stat`, 'latin1').split(') ')[1]?.[0];
      const until = Date.now() + 15_000;
      while (state() !== 'Z' && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(state()).toBe('Z');
      expect(isProcessAlive(mpid)).toBe(true); // the zombie still "exists"
      while (isProcessAlive(gpid) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(() => process.kill(gpid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    } finally {
      if (isProcessAlive(gpid)) process.kill(gpid, 'SIGKILL');
      await killAndReap(shell);
      // The zombie middle now belongs to pid 1, which reaps it.
      const until = Date.now() + 15_000;
      while (isProcessAlive(mpid) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(() => process.kill(mpid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    }
  });
});
