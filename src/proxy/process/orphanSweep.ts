/**
 * The registry folder and the sweep at start. Every proxy process that starts servers keeps
 * one file there (`<pid>-<start>.json`: its own pid and start time, its server groups and the
 * descendants that left them, each with its start time; see groupRegistry.ts) and removes it
 * on a normal exit. `sweepOrphans()` (run by every proxy shortly after it starts, and by the
 * runtime in src/main) reads the files of owners that are gone (no such pid, or another start
 * time), SIGKILLs what they list that is still the same process, and deletes the files.
 * Linux only: elsewhere start times are unknown and the sweep does nothing.
 */
import { lstatSync, mkdirSync, readFileSync, readdirSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUNTIME_DIR_ENV } from '../common/envNames.js';
import { isGroupRunning, processStartTime, signalGroup } from './processTree.js';

export interface RegistryFile {
  owner: { pid: number; start: string };
  groups: { pgid: number; start: string }[];
  pids: { pid: number; start: string }[];
}

const MAX_FILE_BYTES = 256 * 1024;

/** The registry folder (not created). */
export function registryDir(env: NodeJS.ProcessEnv = process.env): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return env[RUNTIME_DIR_ENV] || join(tmpdir(), `qiming-mcp-${uid}`);
}

/**
 * Creates the folder (0700) if needed and checks it is ours and private; returns it, or
 * undefined when it cannot be used safely (someone else's folder, a symlink, open modes).
 */
export function ensureRegistryDir(dir = registryDir()): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

function parse(text: string): RegistryFile | undefined {
  try {
    const v = JSON.parse(text) as RegistryFile;
    const ok = (n: unknown) => Number.isInteger(n) && (n as number) > 1;
    if (!v || !ok(v.owner?.pid) || typeof v.owner.start !== 'string') return undefined;
    return {
      owner: v.owner,
      groups: (Array.isArray(v.groups) ? v.groups : []).filter((g) => ok(g?.pgid) && typeof g.start === 'string'),
      pids: (Array.isArray(v.pids) ? v.pids : []).filter((p) => ok(p?.pid) && typeof p.start === 'string'),
    };
  } catch {
    return undefined;
  }
}

function killQuietly(target: number): void {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // gone, or not ours
  }
}

/**
 * Sweeps the files of dead owners (see the file comment); returns how many processes or
 * groups it killed. Never throws. A group is killed when its leader is still the recorded
 * process, or when the leader is gone but members still run (a group id cannot be taken by
 * another group while any member lives, and a new leader with that pid would have another
 * start time).
 */
export function sweepOrphans(dir = registryDir(), platform: NodeJS.Platform = process.platform): number {
  if (platform !== 'linux') return 0;
  let names: string[];
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) return 0;
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return 0;
  }
  let killed = 0;
  for (const name of names) {
    const path = join(dir, name);
    let entry: RegistryFile | undefined;
    try {
      if (lstatSync(path).size > MAX_FILE_BYTES) continue;
      entry = parse(readFileSync(path, 'utf8'));
    } catch {
      continue;
    }
    if (!entry) continue;
    if (entry.owner.pid === process.pid || processStartTime(entry.owner.pid, platform) === entry.owner.start) continue; // alive
    for (const g of entry.groups) {
      const leader = processStartTime(g.pgid, platform);
      if (leader === undefined ? !isGroupRunning(g.pgid, platform) : leader !== g.start) continue;
      try {
        if (signalGroup(g.pgid, 'SIGKILL')) killed++;
      } catch {
        // EPERM: not ours
      }
    }
    for (const p of entry.pids) {
      if (processStartTime(p.pid, platform) !== p.start) continue;
      killQuietly(p.pid);
      killed++;
    }
    try {
      unlinkSync(path);
    } catch {
      // another sweep took it
    }
  }
  return killed;
}
