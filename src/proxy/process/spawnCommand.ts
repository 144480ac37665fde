/**
 * How to spawn a configured `{command, args}` without a shell, and with which environment.
 *
 * POSIX spawns the command as it is. Windows needs help: `CreateProcess` runs only real
 * executables, while most MCP servers are launched through `.cmd` shims (`npx.cmd`,
 * `uvx.cmd`, global npm bins). Node refuses to run those without a shell, and running
 * them through one naively invites command injection (cmd re-parses the line). So:
 * resolve the command on PATH/PATHEXT ourselves, run `npx`/`npm` shims as
 * `node npx-cli.js` (no cmd at all), and run other batch files through
 * `cmd.exe /d /s /c "<line>"` with every argument quoted and every cmd metacharacter
 * escaped. A `.ps1` (PATHEXT may list it) runs as its `.cmd` sibling when there is one, else
 * through `powershell.exe -NoProfile -File` (arguments quoted by Node, no cmd). Everything
 * is a pure function of `platform`, `env` and a `fileExists` seam.
 * Why this and not cross-spawn: docs/decisions/0024-libraries-taken-and-kept.md.
 */
import { RUN_AS_NODE_ENV, RUNTIME_SECRET_ENVS } from '../common/envNames.js';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

/** What to hand to `child_process.spawn` (always with `shell: false`). */
export interface SpawnPlan {
  command: string;
  args: string[];
  /** True only when `args` is a pre-quoted cmd.exe line. */
  windowsVerbatimArguments: boolean;
  windowsHide: true;
}

export interface ResolveSpawnOptions {
  platform?: NodeJS.Platform;
  /** Environment whose PATH/PATHEXT/ComSpec are used (the child's, normally). */
  env?: NodeJS.ProcessEnv;
  /** Directory relative commands are resolved against. */
  cwd?: string;
  /** Seam for tests: whether a regular file exists at this path. */
  fileExists?: (p: string) => boolean;
}

const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';

function defaultFileExists(p: string): boolean {
  try {
    return existsSync(p) && statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Reads a variable case-insensitively, as Windows does (`Path`, `PATH`, `ComSpec`). */
export function envLookup(env: NodeJS.ProcessEnv, name: string, platform: NodeJS.Platform): string | undefined {
  if (platform !== 'win32') return env[name];
  const upper = name.toUpperCase();
  for (const key of Object.keys(env)) if (key.toUpperCase() === upper) return env[key];
  return undefined;
}

/**
 * Finds `command` the way a Windows shell would: names with a directory part are taken
 * relative to `cwd`; bare names are searched on PATH. Without a known extension each
 * PATHEXT extension is tried in order. Returns undefined when nothing matches.
 */
export function resolveWindowsCommand(
  command: string,
  env: NodeJS.ProcessEnv,
  cwd: string | undefined,
  fileExists: (p: string) => boolean,
): string | undefined {
  const w = path.win32;
  const exts = (envLookup(env, 'PATHEXT', 'win32') || DEFAULT_PATHEXT)
    .split(';')
    .map((e) => e.trim())
    .filter(Boolean);
  const hasKnownExt = exts.some((e) => e.toLowerCase() === w.extname(command).toLowerCase());
  const candidatesIn = (base: string): string[] => (hasKnownExt ? [base] : exts.map((e) => base + e.toLowerCase()));
  let dirs: string[];
  if (/[\\/]/.test(command) || w.isAbsolute(command)) {
    dirs = [''];
  } else {
    // Deliberately no implicit current directory: only PATH, so a planted `npx.cmd` in a
    // project folder is not picked up.
    dirs = (envLookup(env, 'PATH', 'win32') ?? '')
      .split(';')
      .map((d) => d.trim().replace(/^"(.*)"$/, '$1'))
      .filter(Boolean);
  }
  for (const dir of dirs) {
    const base = dir ? w.join(dir, command) : w.resolve(cwd ?? '', command);
    for (const candidate of candidatesIn(base)) if (fileExists(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Characters cmd.exe treats specially; each gets a `^` in front. Token delimiters (space,
 * tab, `,;=`) are escaped too, so a quoted program path with spaces stays one token even
 * though its quotes are escaped.
 */
const CMD_META = /[()%!^"<>&| \t,;=]/g;
/** Characters that make an argument need quotes (cmd splits batch arguments on `,;=` too). */
const NEEDS_QUOTES = /[\s"()%!^<>&|,;=]/;

/**
 * Quotes one argument for a cmd.exe line that starts a batch file. The argument is quoted
 * for the C runtime (backslashes before a quote doubled), with inner quotes written `""`
 * rather than `\"`: batch files forward `%*` through cmd again, and cmd does not know
 * backslash escapes, so `\"` would end the quoted region there. Then every cmd
 * metacharacter, quotes and delimiters included, is `^`-escaped so the first cmd pass sees
 * no quoted region, no operator and no token break; the batch file then gets the quoted
 * text intact. Line breaks cannot be passed through cmd: rejected.
 */
export function quoteCmdArg(arg: string): string {
  if (/[\r\n\0]/.test(arg))
    throw new Error(`argument ${JSON.stringify(arg)} contains a line break or NUL, which cmd.exe cannot pass`);
  let quoted = arg;
  if (arg === '' || NEEDS_QUOTES.test(arg)) {
    quoted = '"';
    let backslashes = 0;
    for (const ch of arg) {
      if (ch === '\\') {
        backslashes++;
        continue;
      }
      if (ch === '"') quoted += '\\'.repeat(backslashes * 2) + '""';
      else quoted += '\\'.repeat(backslashes) + ch;
      backslashes = 0;
    }
    quoted += '\\'.repeat(backslashes * 2) + '"';
  }
  return quoted.replace(CMD_META, '^$&');
}

/** Windows PowerShell, present on every Windows since 7, for a `.ps1` with no `.cmd` beside it. */
function windowsPowerShell(env: NodeJS.ProcessEnv): string {
  const root = envLookup(env, 'SystemRoot', 'win32') || 'C:\\Windows';
  return path.win32.join(root, 'System32', 'WindowsPowerShell', 'v1.0', 'powershell.exe');
}

/** The shims npm installs next to node.exe, and the scripts they run. */
const NPM_SHIMS: Record<string, string> = { npx: 'npx-cli.js', npm: 'npm-cli.js' };

/**
 * Decides how to spawn `{command, args}` safely with `shell: false`.
 * POSIX: unchanged. Windows: see the file comment. An unresolvable command is returned
 * as given, so spawn fails with ENOENT naming it.
 */
export function resolveSpawnCommand(
  command: string,
  args: readonly string[] = [],
  options: ResolveSpawnOptions = {},
): SpawnPlan {
  const platform = options.platform ?? process.platform;
  const plain: SpawnPlan = { command, args: [...args], windowsVerbatimArguments: false, windowsHide: true };
  if (platform !== 'win32') return plain;

  const env = options.env ?? process.env;
  const fileExists = options.fileExists ?? defaultFileExists;
  let resolved = resolveWindowsCommand(command, env, options.cwd, fileExists);
  if (!resolved) return plain;
  const w = path.win32;
  let ext = w.extname(resolved).toLowerCase();
  if (ext === '.ps1') {
    // npm, pnpm and yarn write `x.cmd` beside every `x.ps1`: the batch shim needs no policy.
    const cmdShim = resolved.slice(0, -ext.length) + '.cmd';
    if (fileExists(cmdShim)) [resolved, ext] = [cmdShim, '.cmd'];
    else
      return { ...plain, command: windowsPowerShell(env), args: ['-NoLogo', '-NoProfile', '-File', resolved, ...args] };
  }
  if (ext !== '.cmd' && ext !== '.bat') return { ...plain, command: resolved };

  const dir = w.dirname(resolved);
  const cli = NPM_SHIMS[w.basename(resolved, w.extname(resolved)).toLowerCase()];
  if (cli) {
    const script = w.join(dir, 'node_modules', 'npm', 'bin', cli);
    if (fileExists(script)) {
      // Same choice the shim makes: the node.exe beside it, else node from PATH.
      const bundledNode = w.join(dir, 'node.exe');
      const node = fileExists(bundledNode)
        ? bundledNode
        : (resolveWindowsCommand('node', env, options.cwd, fileExists) ?? 'node');
      return { ...plain, command: node, args: [script, ...args] };
    }
  }

  const comSpec =
    envLookup(env, 'ComSpec', 'win32') ||
    w.join(envLookup(env, 'SystemRoot', 'win32') || 'C:\\Windows', 'System32', 'cmd.exe');
  const line = [resolved, ...args].map(quoteCmdArg).join(' ');
  // /d: skip AutoRun commands; /s: strip exactly the outer quotes and keep the rest as is.
  return { command: comSpec, args: ['/d', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true, windowsHide: true };
}

/** Variables a server inherits on POSIX (the MCP SDK's default set). */
const POSIX_INHERITED = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
/** Variables a server inherits on Windows (the SDK's set plus what cmd shims rely on). */
const WINDOWS_INHERITED = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
  'PROGRAMFILES',
  'TMP',
  'PATHEXT',
  'COMSPEC',
];
/** Inherited on every platform when set: temp dir, locale, corporate CA bundle. */
const COMMON_INHERITED = ['TMPDIR', 'LANG', 'LC_ALL', 'NODE_EXTRA_CA_CERTS'];
/** Never inherited, only passed when the entry's own env sets them. */
export const NEVER_INHERITED = [RUN_AS_NODE_ENV, ...RUNTIME_SECRET_ENVS];

export interface ChildEnvOptions {
  platform?: NodeJS.Platform;
  /** The environment to inherit from; defaults to `process.env`. */
  parentEnv?: NodeJS.ProcessEnv;
  /** Further variable names to inherit (still never those in NEVER_INHERITED). */
  inherit?: readonly string[];
}

/**
 * A server's environment: an allowlisted subset of the parent's, then the entry's own
 * `env` on top (which may set anything, ELECTRON_RUN_AS_NODE included). Inherited values
 * that look like exported bash functions (`() {...`) are skipped. Windows names are
 * matched case-insensitively and keep the parent's spelling.
 */
export function buildChildEnv(
  configEnv: Record<string, string | undefined> | undefined,
  opts: ChildEnvOptions = {},
): Record<string, string> {
  const platform = opts.platform ?? process.platform;
  const parent = opts.parentEnv ?? process.env;
  const win = platform === 'win32';
  const norm = (k: string) => (win ? k.toUpperCase() : k);
  const never = new Set(NEVER_INHERITED.map(norm));
  const wanted = new Set(
    [...(win ? WINDOWS_INHERITED : POSIX_INHERITED), ...COMMON_INHERITED, ...(opts.inherit ?? [])].map(norm),
  );
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined || !wanted.has(norm(key)) || never.has(norm(key))) continue;
    // Skip functions, which are a security risk (Shellshock-style injection).
    if (value.startsWith('()')) continue;
    out[key] = value;
  }
  for (const [key, value] of Object.entries(configEnv ?? {})) {
    if (value === undefined) continue;
    if (win) for (const k of Object.keys(out)) if (k.toUpperCase() === key.toUpperCase()) delete out[k];
    out[key] = value;
  }
  return out;
}

/**
 * Turns a spawn failure into an error naming the server and the command (or the missing
 * working directory, which spawn also reports as ENOENT). Keeps `code` and `cause`.
 */
export function spawnError(
  name: string,
  command: string,
  cwd: string | undefined,
  err: NodeJS.ErrnoException,
): Error & { code?: string } {
  const code = err.code;
  let why: string;
  if (code === 'ENOENT' && cwd !== undefined && !existsSync(cwd)) why = `working directory '${cwd}' not found`;
  else if (code === 'ENOENT') why = `command '${command}' not found`;
  else if (code === 'EACCES') why = `command '${command}' is not executable`;
  else why = `command '${command}' failed to spawn: ${err.message}`;
  return Object.assign(new Error(`cannot start server '${name}': ${why}${code ? ` (${code})` : ''}`, { cause: err }), {
    code,
  });
}
