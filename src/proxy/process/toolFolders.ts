/**
 * Where command-line tools usually live when the login shell cannot be read: the user's own
 * bin folders, the current node of nvm, fnm, volta, asdf or mise, Bun, Cargo, and Homebrew on
 * both architectures. Only folders that exist are returned, user folders first (as a shell
 * profile puts them in front), each once. Pure but for the `exists`/`read` seams.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface ToolFolderSeams {
  home: string;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  isDir?: (p: string) => boolean;
  listDir?: (p: string) => string[];
  readText?: (p: string) => string | undefined;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function list(p: string): string[] {
  try {
    return readdirSync(p);
  } catch {
    return [];
  }
}

function read(p: string): string | undefined {
  try {
    return existsSync(p) ? readFileSync(p, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

/** `v20.11.0` -> [20, 11, 0]; anything else sorts first. */
function versionKey(v: string): number[] {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [-1, -1, -1];
}

function compareVersions(a: string, b: string): number {
  const ka = versionKey(a);
  const kb = versionKey(b);
  for (let i = 0; i < 3; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
  return 0;
}

/**
 * nvm's current node: `alias/default` (followed through aliases such as `lts/*` -> `lts/iron`
 * -> `v20.18.0`, at most 4 hops), matched as a version prefix (`20` -> the highest v20.x);
 * without a default, or when it matches nothing, the highest version installed.
 */
export function nvmNodeBin(
  nvmDir: string,
  s: Required<Pick<ToolFolderSeams, 'listDir' | 'readText'>>,
): string | undefined {
  const versionsDir = path.join(nvmDir, 'versions', 'node');
  const installed = s.listDir(versionsDir).filter((v) => /^v\d+\.\d+\.\d+/.test(v));
  if (installed.length === 0) return undefined;
  installed.sort(compareVersions);
  let wanted = s.readText(path.join(nvmDir, 'alias', 'default'))?.trim();
  for (let hop = 0; hop < 4 && wanted && !/^v?\d/.test(wanted); hop++) {
    if (wanted === 'node' || wanted === 'stable') {
      wanted = undefined;
      break;
    }
    wanted = s.readText(path.join(nvmDir, 'alias', wanted))?.trim();
  }
  let pick: string | undefined;
  if (wanted) {
    const prefix = wanted.startsWith('v') ? wanted : `v${wanted}`;
    const matching = installed.filter((v) => v === prefix || v.startsWith(`${prefix}.`));
    pick = matching.at(-1);
  }
  return path.join(versionsDir, pick ?? installed.at(-1)!, 'bin');
}

/** fnm's folder: `$FNM_DIR`, else the XDG data folder (Linux) or Application Support (macOS), else `~/.fnm`. */
function fnmDirs(home: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[] {
  if (env.FNM_DIR) return [env.FNM_DIR];
  const xdg = env.XDG_DATA_HOME || path.join(home, '.local', 'share');
  const mac = path.join(home, 'Library', 'Application Support', 'fnm');
  return [...(platform === 'darwin' ? [mac] : []), path.join(xdg, 'fnm'), path.join(home, '.fnm')];
}

/** The well-known folders that exist on this machine, in the order to add them. */
export function wellKnownToolFolders(seams: ToolFolderSeams): string[] {
  const { home, env } = seams;
  const platform = seams.platform ?? process.platform;
  if (platform === 'win32') return [];
  const isDir = seams.isDir ?? isDirectory;
  const helpers = { listDir: seams.listDir ?? list, readText: seams.readText ?? read };
  const at = (...parts: string[]) => path.join(home, ...parts);
  const candidates: (string | undefined)[] = [
    at('.local', 'bin'),
    at('bin'),
    nvmNodeBin(env.NVM_DIR || at('.nvm'), helpers),
    ...fnmDirs(home, env, platform).map((d) => path.join(d, 'aliases', 'default', 'bin')),
    path.join(env.VOLTA_HOME || at('.volta'), 'bin'),
    path.join(env.ASDF_DATA_DIR || at('.asdf'), 'shims'),
    at('.local', 'share', 'mise', 'shims'),
    path.join(env.BUN_INSTALL || at('.bun'), 'bin'),
    path.join(env.CARGO_HOME || at('.cargo'), 'bin'),
    at('.deno', 'bin'),
    '/opt/homebrew/bin',
    '/opt/homebrew/sbin',
    '/usr/local/bin',
    '/usr/local/sbin',
    '/home/linuxbrew/.linuxbrew/bin',
  ];
  const out: string[] = [];
  for (const c of candidates) if (c && !out.includes(c) && isDir(c)) out.push(c);
  return out;
}
