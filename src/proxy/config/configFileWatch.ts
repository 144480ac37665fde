/**
 * Follows one config file (`proxy --watch`) and calls back, debounced, after it changed.
 *
 * The folder is watched, not the file: editors save by writing a temporary file and renaming
 * it over the original, which ends a watch on the file itself (its inode is gone). The
 * callback only says "look again"; what changed is decided by reading the file. `fs.watch`
 * rather than chokidar keeps the CLI bundle small; a platform that reports no file name
 * (some network file systems) makes every event in the folder count.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

export interface ConfigFileWatchOptions {
  /** Quiet time after the last event before `onChange`. Default 300 ms. */
  debounceMs?: number;
  onError?: (err: Error) => void;
}

/** Starts watching `path`; returns the function that stops it (idempotent). */
export function watchConfigFile(path: string, onChange: () => void, opts: ConfigFileWatchOptions = {}): () => void {
  const abs = resolve(path);
  const name = basename(abs);
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const schedule = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!closed) onChange();
    }, opts.debounceMs ?? 300);
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(abs), { persistent: false }, (_event, file) => {
      if (file === null || file === undefined || String(file) === name) schedule();
    });
    watcher.on('error', (err) => opts.onError?.(err));
  } catch (err) {
    opts.onError?.(err instanceof Error ? err : new Error(String(err)));
  }
  return () => {
    closed = true;
    clearTimeout(timer);
    watcher?.close();
  };
}
