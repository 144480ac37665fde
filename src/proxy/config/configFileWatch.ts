/**
 * Follows one config file (`proxy --watch`) and calls back, debounced, after it changed.
 *
 * The folder is watched, not the file: editors save by writing a temporary file and renaming
 * it over the original, which ends a watch on the file itself (its inode is gone). When the
 * path is a symlink (a dotfiles repository), two folders are watched: the link's, for the
 * link being re-pointed, and the folder of the file it resolves to, where every write lands
 * (an editor's, the panel's). After each event the link is resolved again, so a re-pointed
 * link moves the second watch to its new target. (A link to a link is followed to the end;
 * re-pointing the link in the middle is not seen.)
 *
 * The callback only says "look again"; what changed is decided by reading the file.
 * `fs.watch` rather than chokidar keeps the CLI bundle small; a platform that reports no
 * file name (some network file systems) makes every event in a watched folder count.
 */
import { realpathSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

export interface ConfigFileWatchOptions {
  /** Quiet time after the last event before `onChange`. Default 300 ms. */
  debounceMs?: number;
  onError?: (err: Error) => void;
}

/** Starts watching `path`; returns the function that stops it (idempotent). */
export function watchConfigFile(path: string, onChange: () => void, opts: ConfigFileWatchOptions = {}): () => void {
  const link = resolve(path);
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  /** By file followed (the link, its target): the watcher of its folder. */
  const watchers = new Map<string, FSWatcher>();
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!closed) onChange();
    }, opts.debounceMs ?? 300);
  };
  const follow = () => {
    let target = link;
    try {
      target = realpathSync(link);
    } catch {
      // Not there (yet): the link's folder tells when it appears.
    }
    const files = new Set([link, target]);
    for (const [file, w] of watchers) {
      if (files.has(file)) continue;
      w.close();
      watchers.delete(file);
    }
    for (const file of files) {
      if (closed || watchers.has(file)) continue;
      try {
        const w = watch(dirname(file), { persistent: false }, (_event, name) => {
          if (closed || (name !== null && name !== undefined && String(name) !== basename(file))) return;
          schedule();
          follow();
        });
        w.on('error', (err) => opts.onError?.(err));
        watchers.set(file, w);
      } catch (err) {
        opts.onError?.(err instanceof Error ? err : new Error(String(err)));
      }
    }
  };
  follow();
  return () => {
    closed = true;
    clearTimeout(timer);
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
}
