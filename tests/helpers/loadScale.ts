// Deadlines for waits on a loaded machine. A wait for a process to start, listen or go is
// not a measure of speed: on a machine loaded to twice its cores, everything takes longer by
// about the run queue's length per core. `loadFactor()` is that ratio (1-minute load average
// over the core count), clamped to 1..4, read when called; `scaled(ms)` is a deadline
// stretched by it. A product bound (a watcher's poll, a grace period) stays what it is; only
// the test's wait for it is scaled, and its message says which bound applied.
import { availableParallelism, loadavg } from 'node:os';

/** 1 on an idle machine, up to 4 when the run queue is four times the cores or longer. */
export function loadFactor(): number {
  const perCore = loadavg()[0] / Math.max(1, availableParallelism());
  return Math.min(4, Math.max(1, perCore));
}

/** `ms` stretched by the current load factor (rounded to whole ms). */
export function scaled(ms: number): number {
  return Math.round(ms * loadFactor());
}
