// What runs under a process, read from /proc (Linux): every descendant by parent links, and
// every member of their process groups, so a test can name every pid a chain started.
import { readFileSync, readdirSync } from 'node:fs';

export interface ProcEntry {
  pid: number;
  ppid: number;
  pgid: number;
  /** Field 22 of /proc/<pid>/stat: start time in clock ticks since boot. */
  start: string;
}

function readEntry(pid: number): ProcEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(f[1]), pgid: Number(f[2]), start: f[19] };
  } catch {
    return undefined;
  }
}

export function procTable(): ProcEntry[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .flatMap((n) => readEntry(Number(n)) ?? []);
}

/** The start time of `pid` (field 22 of its stat), undefined when it does not exist. */
export function startTimeOf(pid: number): string | undefined {
  return readEntry(pid)?.start;
}

/** Every descendant of `root` (not `root` itself) and every member of the groups they lead. */
export function descendantsOf(root: number): number[] {
  const table = procTable();
  const found = new Set<number>();
  const groups = new Set<number>();
  for (let grew = true; grew;) {
    grew = false;
    for (const p of table) {
      if (p.pid === root || found.has(p.pid)) continue;
      if (p.ppid === root || found.has(p.ppid) || groups.has(p.pgid)) {
        found.add(p.pid);
        // Only groups a descendant leads (a server's own group), never the test runner's.
        if (p.pgid === p.pid) groups.add(p.pgid);
        grew = true;
      }
    }
  }
  return [...found];
}
