/**
 * Finding a server's command on a given PATH, as the OS would (POSIX: the first executable
 * regular file; Windows: PATH and PATHEXT, in spawnCommand.ts), the interpreter a `#!` script
 * asks `env` for (`#!/usr/bin/env node`: `npx` is found but cannot start without `node`), PATH
 * lists merged without duplicates, and the error for a command that is nowhere: it names the
 * command, the PATH searched (home shortened to `~`) and what to do.
 */
import { accessSync, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { resolveWindowsCommand } from './spawnCommand.js';

export interface ResolveSeams {
  platform?: NodeJS.Platform;
  /** POSIX: whether `p` is a regular file we may execute. Windows: whether it is a file. */
  isExecutable?: (p: string) => boolean;
  /** The first bytes of a file (for its `#!` line), or undefined. */
  readHead?: (p: string) => string | undefined;
}

function defaultIsExecutable(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function defaultReadHead(p: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(p, 'r');
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const delimiterOf = (platform: NodeJS.Platform) => (platform === 'win32' ? ';' : ':');

/** A PATH value as its folders, empty entries dropped. */
export function splitPath(value: string | undefined, platform: NodeJS.Platform = process.platform): string[] {
  return (value ?? '').split(delimiterOf(platform)).filter((d) => d.trim() !== '');
}

/** `own` first (what the process was given stays in front), then each folder of `extra` it lacks. */
export function mergePath(
  own: string | undefined,
  extra: readonly string[],
  platform: NodeJS.Platform = process.platform,
): string {
  const out = splitPath(own, platform);
  const norm = (d: string) => (platform === 'win32' ? d.toLowerCase() : d).replace(/[\\/]+$/, '');
  const seen = new Set(out.map(norm));
  for (const d of extra) {
    if (!d || seen.has(norm(d))) continue;
    seen.add(norm(d));
    out.push(d);
  }
  return out.join(delimiterOf(platform));
}

/**
 * Where `command` is: a name with a slash is taken relative to `cwd` (no PATH search, as
 * execvp does); a bare name is searched on `pathValue` folder by folder. Windows: PATH with
 * each PATHEXT extension (`pathext`, default `.COM;.EXE;.BAT;.CMD`). Undefined if nowhere.
 */
export function findCommand(
  command: string,
  pathValue: string | undefined,
  cwd: string | undefined,
  seams: ResolveSeams = {},
  pathext?: string,
): string | undefined {
  const platform = seams.platform ?? process.platform;
  const isExecutable = seams.isExecutable ?? defaultIsExecutable;
  if (platform === 'win32')
    return resolveWindowsCommand(command, { PATH: pathValue ?? '', PATHEXT: pathext }, cwd, isExecutable);
  if (command.includes('/')) {
    const full = path.resolve(cwd ?? process.cwd(), command);
    return isExecutable(full) ? full : undefined;
  }
  for (const dir of splitPath(pathValue, platform)) {
    const full = path.resolve(cwd ?? process.cwd(), dir, command);
    if (isExecutable(full)) return full;
  }
  return undefined;
}

/**
 * The command a `#!/usr/bin/env <name>` script needs from PATH (`-S` and other env flags
 * skipped), or undefined: no `#!`, or an absolute interpreter PATH cannot change.
 */
export function envInterpreter(file: string, seams: ResolveSeams = {}): string | undefined {
  const head = (seams.readHead ?? defaultReadHead)(file);
  if (!head?.startsWith('#!')) return undefined;
  const words = head.slice(2).split(/\r?\n/, 1)[0].trim().split(/\s+/);
  if (words.length < 2 || path.posix.basename(words[0]) !== 'env') return undefined;
  const name = words.slice(1).find((w) => !w.startsWith('-') && !w.includes('='));
  return name && !name.includes('/') ? name : undefined;
}

/** `text` with the home folder written `~` wherever it starts a path. */
export function shortenHome(text: string, home: string | undefined): string {
  if (!home || home === '/' || home.length < 2) return text;
  const h = home.replace(/[\\/]+$/, '');
  let out = '';
  let i = 0;
  for (;;) {
    const at = text.indexOf(h, i);
    if (at < 0) break;
    const before = at === 0 ? '' : text[at - 1];
    const after = text[at + h.length];
    const boundary =
      (before === '' || /[:;=\s'"(]/.test(before)) && (after === undefined || /[\\/:;\s'")]/.test(after));
    out += text.slice(i, at) + (boundary ? '~' : h);
    i = at + h.length;
  }
  return out + text.slice(i);
}

/** What to install for a well-known command. */
export function installHint(command: string): string {
  const name = path.win32
    .basename(path.posix.basename(command))
    .replace(/\.(cmd|bat|exe|ps1)$/i, '')
    .toLowerCase();
  if (['node', 'npm', 'npx', 'corepack'].includes(name)) return 'install Node.js';
  if (name === 'pnpm' || name === 'yarn') return `install Node.js and ${name}`;
  if (name === 'uv' || name === 'uvx') return 'install uv';
  if (['python', 'python3', 'pip', 'pip3', 'pipx'].includes(name)) return 'install Python';
  if (name === 'bun' || name === 'bunx') return 'install Bun';
  if (name === 'deno') return 'install Deno';
  if (name === 'docker') return 'install Docker';
  if (name === 'dnx' || name === 'dotnet') return 'install the .NET SDK (10 or later for dnx)';
  return `install ${name}`;
}

/** A command that is on no folder searched: `code` ENOENT, as spawn would have said. */
export class CommandNotFoundError extends Error {
  readonly code = 'ENOENT';
  constructor(
    readonly command: string,
    message: string,
  ) {
    super(message);
    this.name = 'CommandNotFoundError';
  }
}

export interface NotFoundContext {
  /** The server id. */
  name: string;
  command: string;
  /** The PATH searched (the server's, login-shell folders included). */
  searched: string | undefined;
  home: string | undefined;
  platform?: NodeJS.Platform;
  /** Set when `command` was found but its `#!/usr/bin/env` interpreter was not. */
  foundAt?: string;
  interpreter?: string;
}

/** The error for a command (or its interpreter) found nowhere; see the file comment. */
export function commandNotFound(c: NotFoundContext): CommandNotFoundError {
  const platform = c.platform ?? process.platform;
  const pathText = shortenHome(splitPath(c.searched, platform).join(delimiterOf(platform)), c.home) || '(empty)';
  const hasDir = /[\\/]/.test(c.command);
  let what: string;
  if (c.interpreter) {
    what = `command '${c.command}' (${shortenHome(c.foundAt ?? '', c.home)}) needs '${c.interpreter}', which is not on PATH ${pathText}; ${installHint(c.interpreter)}, or set "command" to an absolute path`;
  } else if (hasDir) {
    what = `command '${shortenHome(c.command, c.home)}' not found or not executable; set "command" to the absolute path of an executable file`;
  } else {
    what = `command '${c.command}' not found on PATH ${pathText}; ${installHint(c.command)}, or set "command" to an absolute path`;
  }
  return new CommandNotFoundError(c.command, `cannot start server '${c.name}': ${what}`);
}
