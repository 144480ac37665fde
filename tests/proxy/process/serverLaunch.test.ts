// Which PATH and command a stdio server gets (serverLaunch.ts) on real files: the process's
// own PATH when it has the command, the login-shell folders when it does not (or lacks the
// interpreter of a `#!/usr/bin/env` script), an entry's env.PATH winning, folders handed down;
// the not-found message; Windows through the platform seam (PATHEXT, .cmd/.ps1 shims);
// and the well-known fallback folders (nvm, fnm, volta...) on a temp HOME.
import { chmodSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planServerLaunch, type LaunchRequest } from '../../../src/proxy/process/serverLaunch.js';
import { envInterpreter, findCommand, mergePath, shortenHome } from '../../../src/proxy/process/commandResolver.js';
import type { LoginPath } from '../../../src/proxy/process/loginPath.js';
import { nvmNodeBin, wellKnownToolFolders } from '../../../src/proxy/process/toolFolders.js';
import { tempDir } from '../../helpers/proxyCli.js';

const dirs: { remove: () => void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

function world() {
  const d = tempDir('qiming-launch-');
  dirs.push(d);
  const at = (...p: string[]) => join(d.path, ...p);
  const bin = (dir: string, name: string, text = '#!/bin/sh\nexit 0\n') => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
    return join(dir, name);
  };
  return { root: d.path, at, bin };
}

/** A login seam that counts its calls. */
function loginOf(folders: string[], source: LoginPath['source'] = 'login-shell') {
  const calls = { n: 0 };
  return { calls, login: () => (calls.n++, Promise.resolve({ folders, source, note: 'test' })) };
}

const posix = (w: ReturnType<typeof world>, r: Partial<LaunchRequest>): LaunchRequest => ({
  name: 'srv',
  command: 'tool',
  platform: 'linux',
  home: w.root,
  parentEnv: { PATH: w.at('own'), HOME: w.root },
  ...r,
});

describe('planServerLaunch (POSIX, real files)', () => {
  it('keeps the own PATH, and never reads the login shell, when the command is on it', async () => {
    const w = world();
    const own = w.bin(w.at('own'), 'tool');
    const { calls, login } = loginOf([w.at('shell')]);
    const l = await planServerLaunch(posix(w, { login }));
    expect(l.plan.command).toBe(own);
    expect(l.env.PATH).toBe(w.at('own'));
    expect(l.info).toEqual({ command: '~/own/tool', path: '~/own', pathFrom: 'own' });
    expect(calls.n).toBe(0);
  });

  it('adds the login-shell folders behind its own when the command is not on it', async () => {
    const w = world();
    mkdirSync(w.at('own'));
    const there = w.bin(w.at('shell'), 'tool');
    const { calls, login } = loginOf([w.at('own'), w.at('shell')]);
    const l = await planServerLaunch(posix(w, { login }));
    expect(calls.n).toBe(1);
    expect(l.plan.command).toBe(there);
    expect(l.env.PATH).toBe(`${w.at('own')}:${w.at('shell')}`);
    expect(l.info.pathFrom).toBe('login-shell');
    expect(l.info.path).toBe('~/own:~/shell');
  });

  it('reads the login shell when the command is found but its #!/usr/bin/env interpreter is not', async () => {
    const w = world();
    w.bin(w.at('own'), 'tool', '#!/usr/bin/env -S node --no-warnings\nconsole.log(1)\n');
    w.bin(w.at('nvm'), 'node');
    const { calls, login } = loginOf([w.at('nvm')]);
    const l = await planServerLaunch(posix(w, { login }));
    expect(calls.n).toBe(1);
    expect(l.env.PATH).toBe(`${w.at('own')}:${w.at('nvm')}`);
    // Nowhere: the error names the interpreter and what to install.
    const none = loginOf([]);
    await expect(planServerLaunch(posix(w, { login: none.login }))).rejects.toThrow(
      "cannot start server 'srv': command 'tool' (~/own/tool) needs 'node', which is not on PATH ~/own; install Node.js, or set \"command\" to an absolute path",
    );
  });

  it("an entry's env.PATH wins: used as it is, no login shell, the command looked up there only", async () => {
    const w = world();
    w.bin(w.at('own'), 'tool');
    const mine = w.bin(w.at('mine'), 'tool');
    const { calls, login } = loginOf([w.at('shell')]);
    const l = await planServerLaunch(posix(w, { login, entryEnv: { PATH: w.at('mine') } }));
    expect(l.plan.command).toBe(mine);
    expect(l.env.PATH).toBe(w.at('mine'));
    expect(l.info.pathFrom).toBe('entry');
    await expect(
      planServerLaunch(posix(w, { login, command: 'npx', entryEnv: { PATH: w.at('mine') } })),
    ).rejects.toThrow(/'npx' not found on PATH ~\/mine;/);
    expect(calls.n).toBe(0);
  });

  it('folders handed down (QIMING_LOGIN_PATH) are always added, even when the command is on the own PATH', async () => {
    const w = world();
    w.bin(w.at('own'), 'tool');
    const { login } = loginOf([w.at('handed')], 'handed');
    const l = await planServerLaunch(
      posix(w, { login, parentEnv: { PATH: w.at('own'), QIMING_LOGIN_PATH: w.at('handed') } }),
    );
    expect(l.env.PATH).toBe(`${w.at('own')}:${w.at('handed')}`);
    expect(l.info.pathFrom).toBe('handed');
  });

  it('not found anywhere: names the command, the PATH searched with ~, and what to do', async () => {
    const w = world();
    const { login } = loginOf([w.at('.nvm', 'bin'), '/opt/homebrew/bin']);
    const err = await planServerLaunch(
      posix(w, { login, command: 'npx', parentEnv: { PATH: `${w.at('own')}:/nonexistent/bin` } }),
    ).catch((e: Error) => e);
    expect((err as Error).message).toBe(
      "cannot start server 'srv': command 'npx' not found on PATH ~/own:/nonexistent/bin:~/.nvm/bin:/opt/homebrew/bin; install Node.js, or set \"command\" to an absolute path",
    );
    expect((err as NodeJS.ErrnoException).code).toBe('ENOENT');
    const uvx = await planServerLaunch(posix(w, { login, command: 'uvx', parentEnv: { PATH: w.at('own') } })).catch(
      (e: Error) => e.message,
    );
    expect(uvx).toMatch(/; install uv, or set "command" to an absolute path$/);
  });

  it('a command with a slash is not searched on PATH (spawn judges it), and keeps the own PATH', async () => {
    const w = world();
    const { calls, login } = loginOf([w.at('shell')]);
    const l = await planServerLaunch(posix(w, { login, command: './bin/x', cwd: w.root }));
    expect(l.plan.command).toBe('./bin/x');
    expect(calls.n).toBe(0);
  });
});

describe('planServerLaunch on Windows (platform seam)', () => {
  const files = new Set([
    'C:\\Program Files\\nodejs\\npx.cmd',
    'C:\\Program Files\\nodejs\\npx.ps1',
    'C:\\Program Files\\nodejs\\node.exe',
    'C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npx-cli.js',
    'C:\\Users\\ann\\scoop\\shims\\tool.ps1',
    'C:\\Users\\ann\\bin\\both.js',
    'C:\\Users\\ann\\bin\\both.cmd',
  ]);
  const exists = (p: string) => files.has(p);
  const win = (r: Partial<LaunchRequest>): LaunchRequest => ({
    name: 'srv',
    command: 'npx',
    platform: 'win32',
    isExecutable: exists,
    parentEnv: {
      Path: 'C:\\Windows\\System32;C:\\Program Files\\nodejs;C:\\Users\\ann\\scoop\\shims;C:\\Users\\ann\\bin',
      USERPROFILE: 'C:\\Users\\ann',
      SystemRoot: 'C:\\Windows',
    },
    login: () => Promise.reject(new Error('no login shell on Windows')),
    ...r,
  });

  it('npx resolves to npx.cmd by PATHEXT and runs as node npx-cli.js, no cmd, no login shell', async () => {
    const l = await planServerLaunch(win({ args: ['-y', 'pkg'] }));
    expect(l.plan.command).toBe('C:\\Program Files\\nodejs\\node.exe');
    expect(l.plan.args).toEqual(['C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npx-cli.js', '-y', 'pkg']);
    expect(l.info.pathFrom).toBe('own');
  });

  it('PATHEXT is honoured in its order (.JS before .CMD runs the .js)', async () => {
    const env: NodeJS.ProcessEnv = { ...win({}).parentEnv, PATHEXT: '.COM;.EXE;.JS;.CMD' };
    expect(findCommand('both', env.Path, undefined, { platform: 'win32', isExecutable: exists }, env.PATHEXT)).toBe(
      'C:\\Users\\ann\\bin\\both.js',
    );
    expect(findCommand('both', env.Path, undefined, { platform: 'win32', isExecutable: exists })).toBe(
      'C:\\Users\\ann\\bin\\both.cmd',
    );
  });

  it('a .ps1 runs as its .cmd sibling, and a lone .ps1 through powershell -File', async () => {
    const pathext = '.COM;.EXE;.PS1;.BAT;.CMD';
    const viaCmd = await planServerLaunch(win({ parentEnv: { ...win({}).parentEnv, PATHEXT: pathext } }));
    expect(viaCmd.plan.command).toBe('C:\\Program Files\\nodejs\\node.exe');
    const lone = await planServerLaunch(
      win({ command: 'tool', args: ['a b'], parentEnv: { ...win({}).parentEnv, PATHEXT: pathext } }),
    );
    expect(lone.plan.command).toBe('C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe');
    expect(lone.plan.args).toEqual(['-NoLogo', '-NoProfile', '-File', 'C:\\Users\\ann\\scoop\\shims\\tool.ps1', 'a b']);
    expect(lone.plan.windowsVerbatimArguments).toBe(false);
  });

  it('not found: the Windows PATH with ; and the profile folder as ~', async () => {
    await expect(planServerLaunch(win({ command: 'uvx' }))).rejects.toThrow(
      "cannot start server 'srv': command 'uvx' not found on PATH C:\\Windows\\System32;C:\\Program Files\\nodejs;~\\scoop\\shims;~\\bin; install uv, or set \"command\" to an absolute path",
    );
  });
});

describe('PATH helpers', () => {
  it('mergePath keeps the own order and adds only what is missing', () => {
    expect(mergePath('/a:/b', ['/b/', '/c', '/a', '/c'], 'linux')).toBe('/a:/b:/c');
    expect(mergePath(undefined, ['/c'], 'linux')).toBe('/c');
    expect(mergePath('C:\\A;c:\\b', ['C:\\B', 'D:\\x'], 'win32')).toBe('C:\\A;c:\\b;D:\\x');
  });

  it('shortenHome rewrites the home folder only where it starts a path', () => {
    expect(shortenHome('/home/ann/.local/bin:/home/anna/bin:/x/home/ann', '/home/ann')).toBe(
      '~/.local/bin:/home/anna/bin:/x/home/ann',
    );
    expect(shortenHome('/home/ann', '/home/ann/')).toBe('~');
  });

  it('envInterpreter reads the name a #!/usr/bin/env line asks PATH for', () => {
    const head = (t: string) => ({ readHead: () => t });
    expect(envInterpreter('x', head('#!/usr/bin/env node\n'))).toBe('node');
    expect(envInterpreter('x', head('#!/usr/bin/env -S NODE_OPTIONS=x node --flag\n'))).toBe('node');
    expect(envInterpreter('x', head('#!/bin/sh\n'))).toBeUndefined();
    expect(envInterpreter('x', head('\x7fELF...'))).toBeUndefined();
  });
});

describe('well-known tool folders (the fallback)', () => {
  it('finds the user folders, the current nvm node, fnm, volta, asdf, bun, cargo, in that order, only if they exist', () => {
    const w = world();
    for (const d of [
      '.local/bin',
      '.volta/bin',
      '.asdf/shims',
      '.bun/bin',
      '.cargo/bin',
      '.nvm/versions/node/v18.20.1/bin',
      '.nvm/versions/node/v20.3.0/bin',
      '.nvm/versions/node/v20.11.1/bin',
      'fnm-node/bin',
    ])
      mkdirSync(w.at(d), { recursive: true });
    mkdirSync(w.at('.local/share/fnm/aliases'), { recursive: true });
    symlinkSync(w.at('fnm-node'), w.at('.local/share/fnm/aliases/default'));
    mkdirSync(w.at('.nvm/alias'), { recursive: true });
    writeFileSync(w.at('.nvm/alias/default'), '20\n');
    const got = wellKnownToolFolders({
      home: w.root,
      env: {},
      platform: 'linux',
      isDir: (p) => p.startsWith(w.root) && wellKnownIsDir(p),
    });
    expect(got).toEqual(
      [
        '.local/bin',
        '.nvm/versions/node/v20.11.1/bin',
        '.local/share/fnm/aliases/default/bin',
        '.volta/bin',
        '.asdf/shims',
        '.bun/bin',
        '.cargo/bin',
      ].map((p) => w.at(p)),
    );
    // Homebrew on both architectures, when there.
    const brew = wellKnownToolFolders({
      home: w.root,
      env: {},
      platform: 'darwin',
      isDir: (p) => p === '/opt/homebrew/bin' || p === '/usr/local/bin',
    });
    expect(brew).toEqual(['/opt/homebrew/bin', '/usr/local/bin']);
    expect(wellKnownToolFolders({ home: w.root, env: {}, platform: 'win32' })).toEqual([]);
  });

  it("nvm's default alias: a version prefix, lts/* through its alias files, or the highest installed", () => {
    const w = world();
    for (const v of ['v18.20.1', 'v20.3.0', 'v22.1.0'])
      mkdirSync(w.at('.nvm/versions/node', v, 'bin'), { recursive: true });
    const nvm = w.at('.nvm');
    const io = (files: Record<string, string>) => ({
      listDir: () => ['v18.20.1', 'v20.3.0', 'v22.1.0', 'junk'],
      readText: (p: string) => files[p.slice(nvm.length + 1)],
    });
    expect(nvmNodeBin(nvm, io({}))).toBe(w.at('.nvm/versions/node/v22.1.0/bin'));
    expect(nvmNodeBin(nvm, io({ 'alias/default': '18' }))).toBe(w.at('.nvm/versions/node/v18.20.1/bin'));
    expect(
      nvmNodeBin(nvm, io({ 'alias/default': 'lts/*', 'alias/lts/*': 'lts/iron', 'alias/lts/iron': 'v20.3.0' })),
    ).toBe(w.at('.nvm/versions/node/v20.3.0/bin'));
    expect(nvmNodeBin(nvm, io({ 'alias/default': 'node' }))).toBe(w.at('.nvm/versions/node/v22.1.0/bin'));
  });
});

function wellKnownIsDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
