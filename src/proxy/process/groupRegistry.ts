/**
 * The proxy process's record of the server process groups it started, so that nothing it
 * started outlives it (why: docs/decisions/0011-orphan-watcher.md):
 * - each group is told to the watcher (groupWatcher.ts), which ends them if this process dies;
 * - each group is written to this process's registry file (orphanSweep.ts), which the next
 *   proxy or runtime start sweeps if both this process and its watcher died;
 * - on Linux, descendants that left their server's group (setsid/setpgid) are found by
 *   walking /proc ppid links shortly after each start and then every few seconds, and are
 *   recorded the same way (pid + start time). When their group is stopped they get SIGTERM,
 *   then SIGKILL 1 s later.
 * Windows: nothing (no groups, no /bin/sh); `taskkill /T` at stop is all there is.
 */
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GroupWatcher } from './groupWatcher.js';
import { ensureRegistryDir } from './orphanSweep.js';
import { processStartTime } from './processTree.js';
import { readProcTable, type ProcStat } from './procStat.js';
import type { Logger } from '../common/logger.js';

/** When to look for escaped descendants after a group starts; then every 10 s. */
const SCAN_DELAYS_MS = [250, 1000, 2000, 4000, 8000];
const SCAN_EVERY_MS = 10_000;
const ESCAPED_KILL_GRACE_MS = 1000;

type Proc = ProcStat;

const groups = new Map<number, string>(); // pgid -> leader start time
const escaped = new Map<number, { start: string; group: number }>();
let watcher: GroupWatcher | undefined;
let log: Logger | undefined;
let file: string | undefined | null; // null: no usable folder
let scanTimer: NodeJS.Timeout | undefined;
let scanStep = 0;
let exitHooked = false;

const enabled = () => process.platform !== 'win32';

/** Records a server group just started (its leader `pgid`); a no-op on Windows. */
export function trackServerGroup(pgid: number, logger?: Logger): void {
  if (!enabled()) return;
  log ??= logger;
  const start = processStartTime(pgid) ?? '-';
  groups.set(pgid, start);
  watcher ??= new GroupWatcher(log);
  watcher.send(`g ${pgid} ${start}`);
  hookExit();
  writeRegistry();
  if (process.platform === 'linux') {
    scanStep = 0;
    scheduleScan();
  }
}

/** The watcher's pid, once one started (the runtime waits for it at stop). */
export function groupWatcherPid(): number | undefined {
  return watcher?.pid;
}

/**
 * The end of a graceful stop, once every server group was stopped: closes the watcher's pipe
 * and waits (bounded) for it to exit, so this process reaps it instead of leaving it to init.
 * A group started after this gets a new watcher.
 */
export async function closeGroupWatcher(timeoutMs: number): Promise<boolean> {
  const w = watcher;
  watcher = undefined;
  return w ? w.closeAndWait(timeoutMs) : true;
}

/** The group of `pgid` has no running member any more: forget it, end its escaped descendants. */
export function serverGroupStopped(pgid: number): void {
  if (!groups.delete(pgid)) return;
  watcher?.send(`u ${pgid}`);
  const mine = [...escaped].filter(([, e]) => e.group === pgid);
  for (const [pid, e] of mine) signalIfSame(pid, e.start, 'SIGTERM');
  if (mine.length) {
    setTimeout(() => {
      for (const [pid, e] of mine) {
        signalIfSame(pid, e.start, 'SIGKILL');
        escaped.delete(pid);
        watcher?.send(`q ${pid}`);
      }
      writeRegistry();
    }, ESCAPED_KILL_GRACE_MS).unref();
  }
  writeRegistry();
}

function signalIfSame(pid: number, start: string, signal: NodeJS.Signals): void {
  if (processStartTime(pid) !== start) return;
  try {
    process.kill(pid, signal);
  } catch {
    // gone
  }
}

function scheduleScan(): void {
  clearTimeout(scanTimer);
  if (groups.size === 0 && escaped.size === 0) return;
  const delay = SCAN_DELAYS_MS[scanStep] ?? SCAN_EVERY_MS;
  scanStep++;
  scanTimer = setTimeout(() => {
    scanDescendants();
    scheduleScan();
  }, delay);
  scanTimer.unref();
}

function procTable(): Proc[] {
  return readProcTable() ?? [];
}

/** Finds descendants outside every tracked group; forgets escaped ones that are gone. */
function scanDescendants(): void {
  const table = procTable();
  if (table.length === 0) return;
  const byPid = new Map(table.map((p) => [p.pid, p]));
  let changed = false;
  for (const [pid, e] of escaped) {
    if (byPid.get(pid)?.start === e.start) continue;
    escaped.delete(pid);
    watcher?.send(`q ${pid}`);
    changed = true;
  }
  // owner group of each process reached: members of a tracked group, then their descendants.
  const owner = new Map<number, number>();
  for (const p of table) if (groups.has(p.pgid)) owner.set(p.pid, p.pgid);
  for (const [pid, e] of escaped) owner.set(pid, e.group);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of table) {
      if (owner.has(p.pid) || p.pid === process.pid) continue;
      const g = owner.get(p.ppid);
      if (g === undefined) continue;
      owner.set(p.pid, g);
      grew = true;
      if (!groups.has(p.pgid) && !escaped.has(p.pid)) {
        escaped.set(p.pid, { start: p.start, group: g });
        watcher?.send(`p ${p.pid} ${p.start}`);
        log?.debug(`pid ${p.pid} left the process group of server pid ${g}; tracked`);
        changed = true;
      }
    }
  }
  if (changed) writeRegistry();
}

function registryFile(): string | undefined {
  if (file !== undefined) return file ?? undefined;
  const dir = ensureRegistryDir();
  const start = processStartTime(process.pid);
  file = dir && start ? join(dir, `${process.pid}-${start}.json`) : null;
  return file ?? undefined;
}

function writeRegistry(): void {
  const path = registryFile();
  if (!path) return;
  try {
    if (groups.size === 0 && escaped.size === 0) {
      unlinkSync(path);
      return;
    }
    const body = {
      owner: { pid: process.pid, start: processStartTime(process.pid) },
      groups: [...groups].map(([pgid, start]) => ({ pgid, start })),
      pids: [...escaped].map(([pid, e]) => ({ pid, start: e.start })),
    };
    writeFileSync(`${path}.tmp`, JSON.stringify(body), { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log?.debug(`group registry: ${(err as Error).message}`);
  }
}

/**
 * At exit: close the watcher's pipe (it ends what is still listed) and remove the registry
 * file when nothing is left in it; otherwise the file stays for the next sweep.
 */
function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    clearTimeout(scanTimer);
    writeRegistry();
    watcher?.close();
  });
}
