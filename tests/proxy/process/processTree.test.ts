// Real process groups: a detached wrapper with a grandchild, signalled as one tree.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import {
  isAlive,
  isGroupAlive,
  killTree,
  killTreeSync,
  signalGroup,
  waitForExit,
  waitForGroupExit,
} from '../../../src/proxy/process/processTree.js';
import { expectGone } from '../../helpers/expectGone.js';

const root = join(import.meta.dirname, '..', '..', '..');
const stubborn = join(root, 'tests', 'fixtures', 'childProcess', 'stubborn.mjs');
const posix = process.platform !== 'win32';

let dir: string;
const started: number[] = [];

async function pidsFrom(file: string, count: number): Promise<number[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
    if (lines.length >= count) {
      const pids = lines.map((l) => Number(l.split(' ')[1]));
      started.push(...pids);
      return pids;
    }
    if (Date.now() > deadline) throw new Error(`only ${lines.length} of ${count} pids in ${file}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `sh -c` wrapper (own group) that starts a grandchild and execs a child; both ignore SIGTERM. */
function spawnTree(pidFile: string, detached = true): ChildProcess {
  const node = JSON.stringify(process.execPath);
  const script = `${node} ${JSON.stringify(stubborn)} ${JSON.stringify(pidFile)} grandchild & exec ${node} ${JSON.stringify(stubborn)} ${JSON.stringify(pidFile)} child`;
  const child = spawn('sh', ['-c', script], { detached, stdio: ['pipe', 'ignore', 'ignore'] });
  started.push(child.pid!);
  return child;
}

describe.skipIf(!posix)('processTree (POSIX)', () => {
  afterEach(async () => {
    for (const pid of started.splice(0)) killTreeSync(pid);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('isAlive: true for a live pid, false only once the process is gone', async () => {
    expect(isAlive(process.pid)).toBe(true);
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((r) => child.once('exit', r));
    expect(isAlive(child.pid!)).toBe(false);
    expect(await waitForExit(child.pid!, 100)).toBe(true);
  });

  it('killTree SIGKILLs the whole group, grandchild included, though both ignore SIGTERM', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ptree-'));
    const pidFile = join(dir, 'pids');
    const wrapper = spawnTree(pidFile);
    const pids = await pidsFrom(pidFile, 2);
    expect(pids).toContain(wrapper.pid); // exec keeps the wrapper's pid

    killTree(wrapper.pid!, 'SIGTERM');
    expect(await waitForGroupExit(wrapper.pid!, 300)).toBe(false); // SIGTERM is ignored
    expect(pids.every(isAlive)).toBe(true);

    killTree(wrapper.pid!, 'SIGKILL');
    // Orphans are reaped by init, which may take a moment: bounded wait, then ESRCH for all.
    expect(await waitForGroupExit(wrapper.pid!, 10_000)).toBe(true);
    expect(isGroupAlive(wrapper.pid!)).toBe(false);
    for (const pid of pids) expectGone(pid);
  });

  it('killTree falls back to the pid when it leads no group', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    started.push(child.pid!);
    await new Promise((r) => child.once('spawn', r));
    expect(signalGroup(child.pid!, 0)).toBe(false); // not a group leader
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, s) => r(s)));
    killTree(child.pid!, 'SIGTERM');
    expect(await exited).toBe('SIGTERM');
    expectGone(child.pid!);
  });

  it('killTree and killTreeSync ignore pids that are already gone', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore', detached: true });
    await new Promise((r) => child.once('exit', r));
    expect(() => killTree(child.pid!, 'SIGKILL')).not.toThrow();
    expect(() => killTreeSync(child.pid!)).not.toThrow();
  });

  it('waitForExit returns false when the process outlives the timeout', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', detached: true });
    started.push(child.pid!);
    expect(await waitForExit(child.pid!, 150)).toBe(false);
    killTree(child.pid!, 'SIGKILL');
    expect(await waitForExit(child.pid!, 10_000)).toBe(true);
  });

  it('killTreeOnExit kills a registered tree when its owner exits', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ptree-'));
    const pidFile = join(dir, 'pids');
    // The owner is a real Node process running processTree.ts, bundled here with esbuild.
    const ownerSrc = join(dir, 'owner.ts');
    writeFileSync(
      ownerSrc,
      `import { spawn } from 'node:child_process';
       import { existsSync, readFileSync } from 'node:fs';
       import { killTreeOnExit } from ${JSON.stringify(join(root, 'src', 'proxy', 'process', 'processTree.ts'))};
       const node = ${JSON.stringify(process.execPath)}, fx = ${JSON.stringify(stubborn)}, pf = ${JSON.stringify(pidFile)};
       const c = spawn('sh', ['-c', \`"\${node}" "\${fx}" "\${pf}" grandchild & exec "\${node}" "\${fx}" "\${pf}" child\`], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
       killTreeOnExit(c.pid);
       // Exit (normally, so 'exit' handlers run) once both processes have recorded their pids.
       setInterval(() => { if (existsSync(pf) && readFileSync(pf, 'utf8').trim().split('\\n').length >= 2) process.exit(0); }, 20);`,
    );
    const ownerJs = join(dir, 'owner.mjs');
    await build({
      entryPoints: [ownerSrc],
      outfile: ownerJs,
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
    });
    const owner = spawn(process.execPath, [ownerJs], { stdio: 'ignore' });
    const ownerExited = new Promise((r) => owner.once('exit', r));
    const pids = await pidsFrom(pidFile, 2);
    await ownerExited;
    for (const pid of pids) expect(await waitForExit(pid, 10_000)).toBe(true);
    for (const pid of pids) expectGone(pid);
  });
});
