/**
 * The one reader of /proc/<pid>/stat (Linux): the fields the proxy uses, state, ppid, pgid
 * and start time. Used by processTree.ts (zombies, group members, start times), groupRegistry.ts
 * (the descendants scan) and cli/parentWatchdog.ts (our current parent). The watcher's
 * /bin/sh script (groupWatcher.ts) reads the same fields in shell, since it runs after the
 * proxy is gone.
 */
import { readFileSync, readdirSync } from 'node:fs';

export interface ProcStat {
  pid: number;
  /** Field 3: R, S, D, Z (zombie), T, ... */
  state: string;
  /** Field 4. */
  ppid: number;
  /** Field 5, the process group. */
  pgid: number;
  /** Field 22, clock ticks since boot, kept as text: with the pid it names one process for good. */
  start: string;
}

/**
 * Parses the text of one stat file. The command name (field 2) may hold spaces and
 * parentheses, so the fields are read after the last ')'.
 */
export function parseProcStat(pid: number, text: string): ProcStat {
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { pid, state: f[0] ?? '', ppid: Number(f[1]), pgid: Number(f[2]), start: f[19] as string };
}

/** /proc/<pid>/stat (or /proc/self/stat), or undefined when it cannot be read (gone, not Linux). */
export function readProcStat(pid: number | 'self'): ProcStat | undefined {
  try {
    return parseProcStat(pid === 'self' ? process.pid : pid, readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Every process in /proc (those that exit while it is read are skipped); undefined when /proc cannot be listed. */
export function readProcTable(): ProcStat[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const out: ProcStat[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStat(Number(name));
    if (stat) out.push(stat);
  }
  return out;
}
