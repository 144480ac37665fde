// Spawn resolution and child environment, including Windows logic through the seams
// (platform, env, fileExists), plus a model of cmd.exe and C-runtime parsing that checks
// the quoting round-trips and never leaves an operator outside quotes.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  buildChildEnv,
  quoteCmdArg,
  resolveSpawnCommand,
  resolveWindowsCommand,
} from '../../../src/proxy/process/spawnCommand.js';

const NODEJS = 'C:\\Program Files\\nodejs';
const winEnv = {
  Path: `C:\\Tools;${NODEJS};C:\\Windows\\system32`,
  PATHEXT: '.COM;.EXE;.BAT;.CMD',
  ComSpec: 'C:\\Windows\\system32\\cmd.exe',
  SystemRoot: 'C:\\Windows',
};
function fsWith(...files: string[]): (p: string) => boolean {
  const set = new Set(files.map((f) => f.toLowerCase()));
  return (p) => set.has(p.toLowerCase());
}
const win = (
  command: string,
  args: string[],
  fileExists: (p: string) => boolean,
  env: NodeJS.ProcessEnv = winEnv,
  cwd?: string,
) => resolveSpawnCommand(command, args, { platform: 'win32', env, fileExists, cwd });

/** cmd's first pass over our line: every metacharacter must be caret-escaped; returns the text after caret removal. */
function cmdFirstPass(line: string): string {
  let out = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '^') {
      out += line[++i] ?? '';
      continue;
    }
    if (/[()%!"<>&|]/.test(ch)) throw new Error(`unescaped ${ch} at ${i} in ${line}`);
    out += ch;
  }
  return out;
}

/** When a batch file forwards `%*`, cmd parses the text again: operators must sit inside quotes. */
function operatorsOutsideQuotes(text: string): string[] {
  let quoted = false;
  const found: string[] = [];
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && /[&|<>()^]/.test(ch)) found.push(ch);
  }
  return found;
}

/** The C runtime's argv parser (UCRT rules, including `""` inside quotes). */
function parseArgv(text: string): string[] {
  const args: string[] = [];
  let i = 0;
  while (i < text.length) {
    while (text[i] === ' ' || text[i] === '\t') i++;
    if (i >= text.length) break;
    let arg = '';
    let quoted = false;
    for (; i < text.length; i++) {
      const ch = text[i]!;
      if (ch === '\\') {
        let n = 0;
        while (text[i] === '\\') (n++, i++);
        if (text[i] === '"') {
          arg += '\\'.repeat(n >> 1);
          if (n % 2 === 1) {
            arg += '"';
            continue;
          }
        } else {
          arg += '\\'.repeat(n);
        }
        i--;
        continue;
      }
      if (ch === '"') {
        if (quoted && text[i + 1] === '"') {
          arg += '"';
          i++;
        } else quoted = !quoted;
        continue;
      }
      if (!quoted && (ch === ' ' || ch === '\t')) break;
      arg += ch;
    }
    args.push(arg);
  }
  return args;
}

describe('resolveSpawnCommand', () => {
  it('leaves POSIX commands as they are', () => {
    const plan = resolveSpawnCommand('npx', ['-y', 'a b&c'], { platform: 'linux', fileExists: () => true });
    expect(plan).toEqual({ command: 'npx', args: ['-y', 'a b&c'], windowsVerbatimArguments: false, windowsHide: true });
  });

  it('Windows: resolves an .exe on Path (any case) via PATHEXT and passes args untouched', () => {
    const plan = win('uv', ['run', 'a b'], fsWith('C:\\Tools\\uv.exe'));
    expect(plan).toEqual({
      command: 'C:\\Tools\\uv.exe',
      args: ['run', 'a b'],
      windowsVerbatimArguments: false,
      windowsHide: true,
    });
    // The first PATH entry wins; PATHEXT order decides between extensions in one directory.
    expect(
      resolveWindowsCommand(
        'tool',
        winEnv,
        undefined,
        fsWith('C:\\Windows\\system32\\tool.exe', 'C:\\Tools\\tool.cmd', 'C:\\Tools\\tool.bat'),
      ),
    ).toBe('C:\\Tools\\tool.bat');
  });

  it('Windows: runs npx/npm shims as node <dir>/node_modules/npm/bin/*-cli.js', () => {
    const files = fsWith(
      `${NODEJS}\\npx.cmd`,
      `${NODEJS}\\npm.cmd`,
      `${NODEJS}\\node.exe`,
      `${NODEJS}\\node_modules\\npm\\bin\\npx-cli.js`,
      `${NODEJS}\\node_modules\\npm\\bin\\npm-cli.js`,
    );
    expect(win('npx', ['-y', '@scope/server', 'a&b'], files)).toEqual({
      command: `${NODEJS}\\node.exe`,
      args: [`${NODEJS}\\node_modules\\npm\\bin\\npx-cli.js`, '-y', '@scope/server', 'a&b'],
      windowsVerbatimArguments: false,
      windowsHide: true,
    });
    expect(win('NPM.CMD', ['exec'], files).args[0]).toBe(`${NODEJS}\\node_modules\\npm\\bin\\npm-cli.js`);
  });

  it('Windows: an npx shim without node.exe beside it uses node from Path', () => {
    const files = fsWith('C:\\Tools\\npx.cmd', 'C:\\Tools\\node_modules\\npm\\bin\\npx-cli.js', `${NODEJS}\\node.exe`);
    expect(win('npx', [], files).command).toBe(`${NODEJS}\\node.exe`);
  });

  it('Windows: other batch files (and npx without npm beside it) go through %ComSpec% /d /s /c, quoted', () => {
    const plan = win(
      'my-server',
      ['--root', 'C:\\My Data\\', 'a&b|c', '50%', '(x)', 'say "hi"', ''],
      fsWith(`${NODEJS}\\my-server.cmd`),
    );
    expect(plan.command).toBe('C:\\Windows\\system32\\cmd.exe');
    expect(plan.windowsVerbatimArguments).toBe(true);
    expect(plan.args.slice(0, 3)).toEqual(['/d', '/s', '/c']);
    expect(plan.args[3]).toBe(
      '"' +
        [
          '^"C:\\Program^ Files\\nodejs\\my-server.cmd^"',
          '--root',
          '^"C:\\My^ Data\\\\^"',
          '^"a^&b^|c^"',
          '^"50^%^"',
          '^"^(x^)^"',
          '^"say^ ^"^"hi^"^"^"',
          '^"^"',
        ].join(' ') +
        '"',
    );
    expect(win('npx', ['-y'], fsWith('C:\\Tools\\npx.cmd')).command).toBe('C:\\Windows\\system32\\cmd.exe');
  });

  it('Windows: ComSpec falls back to SystemRoot; relative paths resolve against cwd; unknown commands stay as given', () => {
    const env = { PATH: 'C:\\Tools', SYSTEMROOT: 'D:\\Win' };
    expect(win('x', [], fsWith('C:\\Tools\\x.bat'), env).command).toBe('D:\\Win\\System32\\cmd.exe');
    expect(win('.\\bin\\srv', [], fsWith('C:\\proj\\bin\\srv.exe'), env, 'C:\\proj').command).toBe(
      'C:\\proj\\bin\\srv.exe',
    );
    // A bare name is not looked up in the current directory.
    expect(win('srv', [], fsWith('C:\\proj\\srv.exe'), env, 'C:\\proj').command).toBe('srv');
    expect(win('nope', ['a'], fsWith(), env)).toEqual({
      command: 'nope',
      args: ['a'],
      windowsVerbatimArguments: false,
      windowsHide: true,
    });
  });

  it('Windows: refuses arguments cmd.exe cannot carry (line breaks)', () => {
    expect(() => win('x', ['a\nb'], fsWith('C:\\Tools\\x.cmd'))).toThrow(/line break/);
  });

  it('cmd quoting round-trips any argument and keeps operators quoted for %* forwarding', () => {
    const chars = fc.constantFrom(...'ab \t"\\&|<>()%!^,;=é'.split(''));
    fc.assert(
      fc.property(fc.array(fc.string({ unit: chars, maxLength: 12 }), { maxLength: 5 }), (args) => {
        const plan = win('tool', args, fsWith(`${NODEJS}\\tool.cmd`));
        const line = plan.args[3]!;
        expect(line.startsWith('"') && line.endsWith('"')).toBe(true);
        const afterCmd = cmdFirstPass(line.slice(1, -1));
        expect(parseArgv(afterCmd)).toEqual([`${NODEJS}\\tool.cmd`, ...args]);
        expect(operatorsOutsideQuotes(afterCmd)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('quoteCmdArg leaves plain arguments bare', () => {
    expect(quoteCmdArg('--port')).toBe('--port');
    expect(quoteCmdArg('C:\\dir\\')).toBe('C:\\dir\\');
  });
});

describe('buildChildEnv', () => {
  const parent = {
    HOME: '/home/u',
    PATH: '/usr/bin',
    LANG: 'C.UTF-8',
    NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
    SECRET_API_KEY: 'nope',
    ELECTRON_RUN_AS_NODE: '1',
    MCP_BRIDGE_TOKEN: 'tok',
    TERM: '() { :; }; echo pwned',
  };

  it('POSIX: inherits only the allowlist, drops bash functions and the never-inherited names', () => {
    expect(buildChildEnv({ FOO: 'bar' }, { platform: 'linux', parentEnv: parent })).toEqual({
      HOME: '/home/u',
      PATH: '/usr/bin',
      LANG: 'C.UTF-8',
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
      FOO: 'bar',
    });
  });

  it('the entry env wins, and may set ELECTRON_RUN_AS_NODE / MCP_BRIDGE_TOKEN explicitly', () => {
    const env = buildChildEnv(
      { PATH: '/opt/bin', ELECTRON_RUN_AS_NODE: '1', MCP_BRIDGE_TOKEN: 'mine' },
      { platform: 'linux', parentEnv: parent },
    );
    expect(env.PATH).toBe('/opt/bin');
    expect(env.ELECTRON_RUN_AS_NODE).toBe('1');
    expect(env.MCP_BRIDGE_TOKEN).toBe('mine');
  });

  it('extra inherited names never include the excluded ones', () => {
    const env = buildChildEnv(
      {},
      { platform: 'linux', parentEnv: parent, inherit: ['SECRET_API_KEY', 'ELECTRON_RUN_AS_NODE'] },
    );
    expect(env.SECRET_API_KEY).toBe('nope');
    expect(env.ELECTRON_RUN_AS_NODE).toBeUndefined();
  });

  it('Windows: names match case-insensitively and the entry replaces the inherited spelling', () => {
    const env = buildChildEnv(
      { PATH: 'D:\\bin' },
      {
        platform: 'win32',
        parentEnv: {
          Path: 'C:\\Windows',
          SystemRoot: 'C:\\Windows',
          electron_run_as_node: '1',
          HOME: '/x',
          ComSpec: 'C:\\cmd.exe',
        },
      },
    );
    expect(env).toEqual({ SystemRoot: 'C:\\Windows', ComSpec: 'C:\\cmd.exe', PATH: 'D:\\bin' });
  });
});
