// The suite's own home, and the guard on the real user's data folders (tests/globalSetup.ts).
// The run gives every test, and every process a test starts, a HOME, XDG and APPDATA folders of
// its own; before it does, it notes what is in the real user's data folders, and after the
// last test it names what appeared or went there. Two depths:
// - shallow, the names directly in each home and each data root (`.config`, `.local/share`,
//   `.local/state`, `.cache`, `Library/Application Support`, `AppData/Roaming|Local`): an agent
//   or a tool creating its folder there (`~/.claude`, `~/.config/opencode`) shows;
// - deep, every path inside the runtime's own folders under appData (`qiming-mcp-runtime`: the
//   dev tree's data and its pins; `qiming-mcp`: sign-in records; the installed app's
//   `Qiming MCP Runtime`): a pin file, a default config, a token record shows.
// A file changed in place is not looked at: the user's own agents and apps write their files
// while the suite runs (a Claude Code session driving the run writes under `~/.claude`). Only
// names are read, never a file's content.
import { existsSync, readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

/** Where the run's own home is, for the test that checks every test runs in it (tests/suite/). */
export const SUITE_HOME_ENV = 'QIMING_SUITE_HOME';

/** The variables that lead a process (and Node's `os.homedir()`) to the user's data folders. */
export const HOME_VARS = [
  'HOME',
  'USERPROFILE',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_CACHE_HOME',
  'APPDATA',
  'LOCALAPPDATA',
] as const;
export type HomeVar = (typeof HOME_VARS)[number];

/** The runtime's own folders in appData, looked at deep. */
const RUNTIME_FOLDERS = ['qiming-mcp-runtime', 'qiming-mcp', 'Qiming MCP Runtime'];
/** A deep walk stops past this many paths (the runtime's folders hold a few dozen). */
const MAX_DEEP_PATHS = 50_000;

/** The values of {@link HOME_VARS} for a home at `root`, each folder inside it. */
export function suiteHomeEnv(root: string): Record<HomeVar, string> {
  return {
    HOME: root,
    USERPROFILE: root,
    XDG_CONFIG_HOME: join(root, '.config'),
    XDG_DATA_HOME: join(root, '.local', 'share'),
    XDG_STATE_HOME: join(root, '.local', 'state'),
    XDG_CACHE_HOME: join(root, '.cache'),
    APPDATA: join(root, 'AppData', 'Roaming'),
    LOCALAPPDATA: join(root, 'AppData', 'Local'),
  };
}

export interface UserFolders {
  /** Folders whose own entries are noted. */
  shallow: string[];
  /** Folders noted with everything inside them. */
  deep: string[];
}

/** The data folders of a user whose homes are `homes` and whose environment is `env`. */
export function userDataFolders(homes: string[], env: NodeJS.ProcessEnv, platform = process.platform): UserFolders {
  const roots = new Set<string>();
  const appData = new Set<string>();
  for (const home of homes) {
    roots.add(home);
    for (const sub of [['.config'], ['.local', 'share'], ['.local', 'state'], ['.cache']])
      roots.add(join(home, ...sub));
    if (platform === 'darwin') appData.add(join(home, 'Library', 'Application Support'));
    if (platform === 'win32') {
      appData.add(join(home, 'AppData', 'Roaming'));
      roots.add(join(home, 'AppData', 'Local'));
    }
    if (platform !== 'darwin' && platform !== 'win32') appData.add(join(home, '.config'));
  }
  for (const v of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'LOCALAPPDATA'])
    if (env[v]) roots.add(env[v]);
  if (platform === 'win32' && env.APPDATA) appData.add(env.APPDATA);
  if (platform !== 'darwin' && platform !== 'win32' && env.XDG_CONFIG_HOME) appData.add(env.XDG_CONFIG_HOME);
  for (const a of appData) roots.add(a);
  const deep = [...appData].flatMap((a) => RUNTIME_FOLDERS.map((f) => join(a, f)));
  return { shallow: [...roots], deep };
}

/** Every path noted in `folders` (a folder that does not exist notes nothing). */
export function snapshot(folders: UserFolders): Set<string> {
  const out = new Set<string>();
  for (const dir of folders.shallow) for (const e of entries(dir)) out.add(join(dir, e.name));
  for (const dir of folders.deep) walk(dir, out);
  return out;
}

/** What appeared in and went from the user's folders between two snapshots, one line each. */
export function changes(before: Set<string>, after: Set<string>): string[] {
  const out: string[] = [];
  for (const p of after) if (!before.has(p)) out.push(`new: ${p}`);
  for (const p of before) if (!after.has(p)) out.push(`gone: ${p}`);
  return out.sort();
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function walk(dir: string, out: Set<string>): void {
  if (!existsSync(dir)) return;
  const stack = [dir];
  while (stack.length > 0 && out.size < MAX_DEEP_PATHS) {
    const d = stack.pop()!;
    for (const e of entries(d)) {
      const p = join(d, e.name);
      out.add(p);
      if (e.isDirectory()) stack.push(p);
    }
  }
}
