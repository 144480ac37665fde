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
  /** Per watched folder: its watcher and the file names in it that count. */
  const folders = new Map<string, { watcher?: FSWatcher; names: Set<string> }>();
  const fail = (err: unknown) => opts.onError?.(err instanceof Error ? err : new Error(String(err)));

  const schedule = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!closed) onChange();
    }, opts.debounceMs ?? 300);
  };

  /** Watches the folders of the link and of its target as they are now. */
  const follow = () => {
    let target: string | undefined;
    try {
      target = realpathSync(link);
    } catch {
      target = undefined; // not there (yet): the link's folder still tells when it appears
    }
    const wanted = new Map<string, Set<string>>();
    for (const file of target === undefined || target === link ? [link] : [link, target]) {
      const names = wanted.get(dirname(file)) ?? new Set<string>();
      names.add(basename(file));
      wanted.set(dirname(file), names);
    }
    for (const [folder, w] of folders) {
      if (wanted.has(folder)) continue;
      w.watcher?.close();
      folders.delete(folder);
    }
    for (const [folder, names] of wanted) {
      const known = folders.get(folder);
      if (known) {
        known.names = names;
        continue;
      }
      const entry: { watcher?: FSWatcher; names: Set<string> } = { names };
      folders.set(folder, entry);
      try {
        entry.watcher = watch(folder, { persistent: false }, (_event, file) => {
          if (file !== null && file !== undefined && !entry.names.has(String(file))) return;
          schedule();
          if (!closed) follow();
        });
        entry.watcher.on('error', fail);
      } catch (err) {
        fail(err);
      }
    }
  };

  follow();
  return () => {
    closed = true;
    clearTimeout(timer);
    for (const w of folders.values()) w.watcher?.close();
    folders.clear();
  };
}
