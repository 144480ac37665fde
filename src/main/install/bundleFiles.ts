// src/main/install/: the app's side of installing servers: its bridge's /install routes asked for the page, and the .mcpb files the OS asks it to open.
/**
 * The `.mcpb` files the app is asked to open: which arguments of a command line name one (a
 * double-click on Windows and Linux starts the app, or a second instance, with the path), and
 * reading one with its size bounded before anything is read.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import { MAX_BUNDLE_BYTES } from '../../shared/install.js';

const MIB = 1024 * 1024;

/** Whether `path` names a bundle by its extension. */
export function isBundlePath(path: string): boolean {
  return /\.mcpb$/i.test(path);
}

/**
 * The `.mcpb` paths on a command line, made absolute against `cwd` (a second instance's own
 * working folder). `argv[0]` (the executable) and options (`-x`, `--x=...`) are never paths.
 */
export function bundlePathsIn(argv: readonly string[], cwd: string): string[] {
  return argv
    .slice(1)
    .filter((a) => !a.startsWith('-') && isBundlePath(a))
    .map((a) => (isAbsolute(a) ? a : resolve(cwd, a)));
}

/** The file's bytes, or why they cannot be had (not a regular file, over the installer's limit, unreadable). */
export async function readBundleFile(
  path: string,
): Promise<{ fileName: string; data: Buffer } | { fileName: string; error: string }> {
  const fileName = basename(path);
  if (!isBundlePath(path)) return { fileName, error: 'not a .mcpb file' };
  try {
    const s = await stat(path);
    if (!s.isFile()) return { fileName, error: 'not a file' };
    if (s.size > MAX_BUNDLE_BYTES)
      return {
        fileName,
        error: `the bundle is refused: it is over ${MAX_BUNDLE_BYTES / MIB} MiB, the largest .mcpb the installer takes`,
      };
    return { fileName, data: await readFile(path) };
  } catch (err) {
    return { fileName, error: `cannot read it: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  }
}
