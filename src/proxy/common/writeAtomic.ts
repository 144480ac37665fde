// The one atomic file write: a temp file in the same folder (same file system), written whole,
// given `mode` whatever the umask, fsync'ed, then renamed over the file. A reader sees the old
// content or the new one, never a half-written file; the temp file never outlives a failure.
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `data` to `path` atomically with file mode `mode`. Synchronous: two writes in one
 * process never interleave. `beforeRename`, when given, runs once the temp file is complete;
 * if it throws, the temp file is removed, `path` is left as it was, and the error is thrown.
 */
export function writeAtomic(path: string, data: string | Buffer, mode: number, beforeRename?: () => void): void {
  // `node:crypto` taken at the first write, not imported: this module is loaded at every start
  // (the OAuth store imports it) and crypto is about 2 ms of Node's own modules to load.
  const suffix = process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex');
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${suffix}.tmp`);
  const fd = openSync(tmp, 'wx', mode);
  try {
    fchmodSync(fd, mode);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  try {
    beforeRename?.();
    renameSync(tmp, path);
  } catch (err) {
    unlinkSync(tmp);
    throw err;
  }
}
