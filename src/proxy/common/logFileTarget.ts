/**
 * Opening `MCP_PROXY_LOG_FILE` safely. Only a regular file, or a path that does not exist yet
 * (then created), is ever written: a FIFO, a socket, a device, a directory or anything under
 * /proc, /sys or /dev is refused, since writing there can block the proxy for good (a FIFO
 * without a reader), write into its own stdio (/proc/self/fd/1), or loop. Every open is
 * non-blocking and checked with fstat afterwards, so a path swapped meanwhile is caught too.
 */
import { closeSync, constants, fstatSync, openSync, realpathSync, statSync, statfsSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';

const OPEN_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
/** Pseudo file systems (Linux statfs magic numbers): procfs, sysfs, debugfs, devpts, tmpfs-less /dev. */
const PSEUDO_FS = new Set([0x9fa0, 0x62656572, 0x64626720, 0x1cd1]);
const PSEUDO_DIRS = ['/proc', '/sys', '/dev'];

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isDirectory()) return 'a directory';
  return 'not a regular file';
}

function pseudoDirOf(...paths: string[]): string | undefined {
  return PSEUDO_DIRS.find((d) => paths.some((p) => p === d || p.startsWith(`${d}/`)));
}

/**
 * Why `path` must not be used as a log file, or undefined when it may be (a regular file, or
 * missing). Errors other than "missing" are left for the open to report.
 */
export function refuseLogFile(path: string): string | undefined {
  const abs = resolve(path);
  let st: Stats | undefined;
  try {
    st = statSync(abs);
  } catch {
    // Missing (or unreachable): checked by where it would be created.
  }
  if (st && !st.isFile()) return `${kindOf(st)}, not a regular file`;
  let real = abs;
  try {
    real = realpathSync(st ? abs : dirname(abs));
  } catch {
    // The parent does not exist yet either; it is created under `abs`.
  }
  const pseudo = process.platform === 'win32' ? undefined : pseudoDirOf(abs, real);
  if (pseudo) return `under ${pseudo}, not a regular file`;
  if (process.platform === 'linux') {
    try {
      if (PSEUDO_FS.has(statfsSync(real).type)) return 'on a pseudo file system, not a regular file';
    } catch {
      // statfs unavailable or the path is gone: the open decides.
    }
  }
  return undefined;
}

/** An open, append-only, non-blocking fd of a regular file, or why the file was refused. */
export function openLogFile(path: string): { fd: number } | { refused: string } {
  const fd = openSync(path, OPEN_FLAGS, 0o644);
  let st: Stats;
  try {
    st = fstatSync(fd);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  if (st.isFile()) return { fd };
  closeSync(fd);
  return { refused: `${kindOf(st)}, not a regular file` };
}
