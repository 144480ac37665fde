/**
 * File reads for the log tail: a stat that says "no file" instead of throwing, a positional
 * read, and the start of a file's unfinished last line.
 */
import type { BigIntStats } from 'node:fs';
import { stat, type FileHandle } from 'node:fs/promises';

/** The file's stats, or undefined when it does not exist. */
export async function statOrUndefined(path: string): Promise<BigIntStats | undefined> {
  try {
    return await stat(path, { bigint: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Up to `length` bytes at `position` (fewer at the end of the file). */
export async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const b = Buffer.alloc(length);
  if (length === 0) return b;
  const { bytesRead } = await fh.read(b, 0, length, position);
  return b.subarray(0, bytesRead);
}

/** For `startAt: 'end'`: the start of the unfinished last line, so it is delivered once complete. */
export async function lastLineStart(fh: FileHandle, size: number, lookBackBytes: number): Promise<number> {
  const from = Math.max(0, size - lookBackBytes);
  const tail = await readAt(fh, from, size - from);
  const nl = tail.lastIndexOf(0x0a);
  if (nl >= 0) return from + nl + 1;
  return from === 0 ? 0 : size; // a single line longer than the look-back: skip it
}
