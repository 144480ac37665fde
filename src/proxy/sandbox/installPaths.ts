/**
 * What a sandboxed server must read of its own installation, beyond the system's folders: the
 * folders on its PATH outside them, the package its command (or the script it is given, or the
 * interpreter its `#!/usr/bin/env` names) belongs to with the `node_modules` that package
 * resolves from, and, for `npx <package>`, the copy npx fetched into the user's cache or the
 * server's private one (npxFetch.ts), run directly (npx itself asks the registry for the latest
 * version before it runs anything, which a sandbox without network refuses); in neither, the
 * plan says what to fetch. Every path is an existing one; bind sources are real paths.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';

/** Mounted read-only as they are: the system's programs, libraries and settings. */
export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix'];
/** How many of npx's cached installs are looked at, at most. */
const MAX_NPX_DIRS = 1000;

export function under(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

export function isSystemPath(p: string): boolean {
  return SYSTEM_DIRS.some((d) => under(p, d));
}

function real(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * The folder a file's package lives in: the top `node_modules` holding it (so its
 * dependencies resolve), else the nearest folder with a package.json or pyproject.toml, else
 * its own folder. Never `home` itself or `/`.
 */
export function packageRoot(file: string, home: string): string {
  const parts = file.split(sep);
  const nm = parts.indexOf('node_modules');
  if (nm > 0) return parts.slice(0, nm + 1).join(sep);
  for (let dir = dirname(file); dir !== dirname(dir) && dir !== home; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) || existsSync(join(dir, 'pyproject.toml'))) return dir;
  }
  return dirname(file);
}

/** A path to bind read-only: `source` (real) mounted at `dest` (as the server names it). */
export interface Mount {
  source: string;
  dest: string;
}

/**
 * The mounts of `path` (a folder or file): its real path, mounted where it really is (links in
 * the folders mounted resolve there); where `path` is a link, also at `path` itself, unless a
 * folder above it is a link (which then resolves it); and its `node_modules` when that is a link.
 */
function mountsOf(path: string): Mount[] {
  const src = real(path);
  if (!src) return [];
  const out: Mount[] = [{ source: src, dest: src }];
  if (src !== path && real(dirname(path)) === dirname(path)) out.push({ source: src, dest: path });
  const nm = join(src, 'node_modules');
  const nmReal = existsSync(nm) ? real(nm) : undefined;
  if (nmReal && nmReal !== nm) out.push({ source: nmReal, dest: nmReal });
  return out;
}

export interface InstallInput {
  /** The command as resolved on the server's PATH. */
  command: string;
  args: readonly string[];
  /** The server's PATH. */
  path: string;
  /** The user's home (the private HOME is mounted over it). */
  home: string;
  /** npm's cache (default `~/.npm`), where `_npx` is. */
  npmCache?: string;
  /**
   * The server's private npm cache (in its private HOME, where the fetch step of npxFetch.ts
   * puts what npx was asked for): its real path, and where the sandbox mounts it.
   */
  privateNpmCache?: { real: string; inside: string };
}

export interface InstallPlan {
  mounts: Mount[];
  /** Set when `npx <package>` runs npx's cached copy directly. */
  command?: string;
  /** `npx <package>` found in no cache: the packages npx is asked for. */
  npxFetch?: string[];
  args?: string[];
  /** What the log says of it. */
  note?: string;
}

/** The packages `npx` is asked for, and where the server's own arguments start. */
export function npxSpecs(args: readonly string[]): { specs: string[]; bin?: string; rest: string[] } | undefined {
  const specs: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === '-y' || a === '--yes' || a === '-q' || a === '--quiet') continue;
    if (a === '-p' || a === '--package') specs.push(args[++i] ?? '');
    else if (a.startsWith('--package=')) specs.push(a.slice('--package='.length));
    else if (a === '--') continue;
    else if (a.startsWith('-')) return undefined;
    else break;
  }
  if (i >= args.length) return undefined;
  if (specs.length === 0) return { specs: [args[i]], rest: args.slice(i + 1) };
  return { specs, bin: args[i], rest: args.slice(i + 1) };
}

/** The name in a spec: `@scope/name@1.2` -> `@scope/name`. */
function specName(spec: string): string {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at > 0 ? spec.slice(0, at) : spec;
}

/** npx's cached install of `specs` and the bin to run, when npx fetched it before. */
function npxCached(
  cache: string,
  specs: string[],
  bin: string | undefined,
): { dir: string; binPath: string } | undefined {
  const root = join(cache, '_npx');
  let dirs: string[];
  try {
    dirs = readdirSync(root).slice(0, MAX_NPX_DIRS);
  } catch {
    return undefined;
  }
  const want = [...specs].sort().join('\n');
  for (const d of dirs) {
    const dir = join(root, d);
    let pkg: { _npx?: { packages?: unknown } };
    try {
      pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof pkg;
    } catch {
      continue;
    }
    const have = pkg._npx?.packages;
    if (!Array.isArray(have) || [...have].map(String).sort().join('\n') !== want) continue;
    let name = bin;
    if (name === undefined) {
      const main = specName(specs[0]);
      try {
        const manifest = JSON.parse(readFileSync(join(dir, 'node_modules', main, 'package.json'), 'utf8')) as {
          bin?: string | Record<string, string>;
          name?: string;
        };
        const bins = typeof manifest.bin === 'string' ? { [basename(main)]: manifest.bin } : (manifest.bin ?? {});
        const names = Object.keys(bins);
        name = names.length === 1 ? names[0] : names.find((n) => n === basename(main));
      } catch {
        continue;
      }
    }
    const binPath = name ? join(dir, 'node_modules', '.bin', name) : '';
    if (name && isFile(binPath)) return { dir, binPath };
  }
  return undefined;
}

/** The mounts, and for npx the command to run instead; see the file comment. */
export function installPlan(input: InstallInput): InstallPlan {
  const mounts: Mount[] = [];
  const add = (p: string | undefined) => {
    if (p && !isSystemPath(p) && p !== input.home && p !== sep) mounts.push(...mountsOf(p));
  };
  for (const dir of input.path.split(':')) if (dir && dir.startsWith(sep)) add(dir);
  let command = input.command;
  let args = [...input.args];
  let note: string | undefined;
  let npxFetch: string[] | undefined;
  if (basename(command) === 'npx') {
    const asked = npxSpecs(args);
    const cached = asked && npxCached(input.npmCache ?? join(input.home, '.npm'), asked.specs, asked.bin);
    const own = asked && !cached && input.privateNpmCache;
    const fetched = own ? npxCached(own.real, asked.specs, asked.bin) : undefined;
    if (asked && cached) {
      command = cached.binPath;
      args = asked.rest;
      note = `runs npx's cached ${asked.specs.join(', ')} directly (${cached.dir}): npx itself asks the registry first`;
      add(cached.dir);
    } else if (asked && own && fetched) {
      // In the private HOME, mounted already: run at the path it has inside.
      command = own.inside + fetched.binPath.slice(own.real.length);
      args = asked.rest;
      note = `runs ${asked.specs.join(', ')} from its private npm cache (${fetched.dir})`;
    } else if (asked) npxFetch = asked.specs;
  }
  // The command, and a script handed to an interpreter (`node /x/server.mjs`), by the path
  // written and by the real one (a linked node_modules resolves from the latter).
  const script = args.find((a) => a.startsWith(sep) && isFile(a));
  for (const file of [command, script]) {
    const fileReal = file && real(file);
    if (!file || !fileReal) continue;
    if (file.startsWith(sep)) add(packageRoot(file, input.home));
    add(packageRoot(fileReal, input.home));
  }
  const seen = new Set<string>();
  const unique = mounts.filter((m) => {
    const key = `${m.source}\0${m.dest}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  return {
    mounts: unique,
    ...(command !== input.command ? { command, args } : {}),
    ...(note ? { note } : {}),
    ...(npxFetch ? { npxFetch } : {}),
  };
}
