// A process's resident memory read from /proc/<pid>/status (Linux only), and a sampler
// that records the peak while a test runs.
import { readFileSync } from 'node:fs';

/** VmRSS of `pid` in MiB, or undefined once the process is gone. */
export function rssMiB(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples `pid`'s RSS every `everyMs` until `stop()`; `peak` is the largest seen (MiB). */
export function sampleRss(pid: number, everyMs = 200): { readonly peak: number; stop(): number } {
  let peak = 0;
  const take = () => {
    const v = rssMiB(pid);
    if (v !== undefined && v > peak) peak = v;
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    get peak() {
      return peak;
    },
    stop() {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}
