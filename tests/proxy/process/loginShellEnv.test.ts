// The login-shell read with real shells (bash and dash, which are here): rc files that print,
// prompt, hang or leave a job behind; a missing shell; and the per-family command selection
// (fish and csh are not installed here: their invocation is checked as data).
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  loginShellArgs,
  newMarkers,
  readLoginShellPath,
  shellFamily,
  textBetween,
} from '../../../src/proxy/process/loginShellEnv.js';
import { discoverLoginPath } from '../../../src/proxy/process/loginPath.js';
import { tempDir } from '../../helpers/proxyCli.js';
import { waitNotRunning } from '../../helpers/processGone.js';

const dirs: { remove: () => void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

/** A temp HOME whose bash login profile is `profile`, and a folder `tools` for it to add. */
function home(profile: (tools: string, root: string) => string): {
  root: string;
  tools: string;
  env: NodeJS.ProcessEnv;
} {
  const d = tempDir('qiming-login-');
  dirs.push(d);
  const tools = join(d.path, 'tools');
  mkdirSync(tools);
  writeFileSync(join(d.path, '.bash_profile'), profile(tools, d.path));
  const env = {
    HOME: d.path,
    PATH: '/usr/bin:/bin',
    SHELL: '/bin/bash',
    MCP_BRIDGE_TOKEN: 'secret-token-for-the-bridge-only',
  };
  return { root: d.path, tools, env };
}

describe('login shell command selection', () => {
  it('picks the syntax by the shell file name', () => {
    const m = newMarkers();
    for (const sh of ['/bin/sh', '/bin/bash', '/usr/bin/zsh', '/bin/dash', '/bin/ksh', '/opt/homebrew/bin/bash']) {
      expect(shellFamily(sh), sh).toBe('posix');
      const args = loginShellArgs(sh, m)!;
      expect(args.slice(0, 3)).toEqual(['-i', '-l', '-c']);
      expect(args[3]).toContain('"$PATH"');
    }
    // fish keeps PATH as a list: its own `string join`, never "$PATH".
    const fish = loginShellArgs('/opt/homebrew/bin/fish', m)!;
    expect(shellFamily('/usr/local/bin/fish')).toBe('fish');
    expect(fish.slice(0, 3)).toEqual(['-i', '-l', '-c']);
    expect(fish[3]).toContain('(string join : $PATH)');
    expect(fish[3]).not.toContain('"$PATH"');
    // csh takes -l only alone.
    expect(loginShellArgs('/bin/tcsh', m)!.slice(0, 2)).toEqual(['-i', '-c']);
    for (const other of ['/usr/bin/nu', '/usr/bin/xonsh', '/usr/bin/pwsh', '/bin/elvish'])
      expect(loginShellArgs(other, m), other).toBeUndefined();
  });

  it('never puts a whole marker in argv, so only the shell output can hold one', () => {
    const m = newMarkers();
    const script = loginShellArgs('/bin/bash', m)![3];
    expect(script).not.toContain(m.start);
    expect(script).not.toContain(m.end);
    expect(textBetween(`noise ${m.start}/a:/b${m.end} more`, m)).toBe('/a:/b');
    expect(textBetween(`noise ${m.start}/a:/b`, m)).toBeUndefined();
  });
});

describe('readLoginShellPath with real shells', () => {
  it('bash: reads the PATH its login profile sets, ignoring what the profile prints', async () => {
    const h = home(
      (tools) => `echo "welcome to the box"; printf 'no newline'\nexport PATH="$PATH:${tools}"\necho bye\n`,
    );
    const r = await readLoginShellPath({ env: h.env });
    expect(r).toMatchObject({ ok: true, shell: '/bin/bash' });
    expect(r.ok && r.path.split(':')).toContain(h.tools);
    expect(r.ok && r.path).not.toContain('welcome');
  });

  it('dash as sh: reads PATH from the file $ENV names (its interactive profile)', async () => {
    const h = home(() => '');
    const profile = join(h.root, 'shrc');
    writeFileSync(profile, `echo dash-noise\nPATH="$PATH:${h.tools}"; export PATH\n`);
    const r = await readLoginShellPath({ shell: '/bin/dash', env: { ...h.env, SHELL: '/bin/dash', ENV: profile } });
    expect(r.ok && r.path.split(':')).toContain(h.tools);
  });

  it('does not hang on a prompt (stdin is /dev/null) and gives the shell no terminal', async () => {
    const h = home(
      (tools, root) =>
        `read -r answer; echo "$answer" > ${root}/answer; tty > ${root}/tty 2>&1\nexport PATH="$PATH:${tools}"\n`,
    );
    const r = await readLoginShellPath({ env: h.env });
    expect(r.ok && r.path.split(':')).toContain(h.tools);
    expect(readFileSync(join(h.root, 'tty'), 'utf8')).toMatch(/not a tty/);
  });

  it('a profile that hangs: the deadline ends it, the whole group is killed, the fallback is used', async () => {
    const h = home((_tools, root) => `echo $$ > ${root}/shell.pid\nsleep 60 & echo $! > ${root}/sleep.pid\nwait\n`);
    mkdirSync(join(h.root, '.local', 'bin'), { recursive: true });
    const r = await readLoginShellPath({ env: h.env, timeoutMs: 1000 });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/no answer within 1000 ms/);
    const shellPid = Number(readFileSync(join(h.root, 'shell.pid'), 'utf8'));
    const sleepPid = Number(readFileSync(join(h.root, 'sleep.pid'), 'utf8'));
    expect(await waitNotRunning(shellPid, 3000), 'the shell').toBe(true);
    expect(await waitNotRunning(sleepPid, 3000), 'its job').toBe(true);
    // The same through discoverLoginPath: well-known folders that exist under HOME.
    const lp = await discoverLoginPath({
      env: { ...h.env, QIMING_LOGIN_SHELL_TIMEOUT_MS: '1000' },
      home: h.root,
      platform: 'linux',
    });
    expect(lp.source).toBe('fallback');
    expect(lp.folders[0]).toBe(join(h.root, '.local', 'bin'));
    expect(lp.note).toMatch(/cannot read the login shell's PATH \(\/bin\/bash: no answer within 1000 ms/);
    expect(lp.note).toContain('~/.local/bin');
  }, 15_000);

  it('a job the profile leaves behind after printing goes with the shell', async () => {
    const h = home(
      (tools, root) => `export PATH="$PATH:${tools}"\n(trap '' HUP; exec sleep 60) & echo $! > ${root}/job.pid\n`,
    );
    const r = await readLoginShellPath({ env: h.env });
    expect(r.ok).toBe(true);
    const job = Number(readFileSync(join(h.root, 'job.pid'), 'utf8'));
    expect(await waitNotRunning(job, 4000)).toBe(true);
  });

  it('the shell does not see the bridge token, and may tell it is being read', async () => {
    const h = home((_t, root) => `env > ${root}/seen\n`);
    await readLoginShellPath({ env: h.env });
    const seen = readFileSync(join(h.root, 'seen'), 'utf8');
    expect(seen).not.toContain('secret-token-for-the-bridge-only');
    expect(seen).toMatch(/^QIMING_RESOLVING_ENVIRONMENT=1$/m);
  });

  it('a missing shell, an unset SHELL, a relative one, an unsupported one: not ok, with the reason', async () => {
    const h = home(() => '');
    const gone = await readLoginShellPath({ shell: join(h.root, 'no', 'zsh'), env: h.env });
    expect(gone).toMatchObject({ ok: false, reason: expect.stringMatching(/zsh not found/) });
    expect(await readLoginShellPath({ shell: '', env: h.env })).toMatchObject({
      ok: false,
      reason: 'SHELL is not set',
    });
    expect(await readLoginShellPath({ shell: 'bash', env: h.env })).toMatchObject({
      ok: false,
      reason: 'SHELL is not an absolute path',
    });
    expect(await readLoginShellPath({ shell: '/usr/bin/nu', env: h.env })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not a shell we can read/),
    });
    const lp = await discoverLoginPath({
      env: { ...h.env, SHELL: join(h.root, 'no', 'zsh') },
      home: h.root,
      platform: 'linux',
    });
    expect(lp.source).toBe('fallback');
    expect(existsSync(join(h.root, 'no'))).toBe(false);
  });

  it('a folder handed down in QIMING_LOGIN_PATH is used without running any shell', async () => {
    const h = home((_t, root) => `touch ${root}/ran\n`);
    const lp = await discoverLoginPath({
      env: { ...h.env, QIMING_LOGIN_PATH: `${h.tools}:/opt/x` },
      platform: 'linux',
    });
    expect(lp).toMatchObject({ source: 'handed', folders: [h.tools, '/opt/x'] });
    expect(existsSync(join(h.root, 'ran'))).toBe(false);
    expect((await discoverLoginPath({ env: { ...h.env, QIMING_LOGIN_PATH: '' }, platform: 'linux' })).folders).toEqual(
      [],
    );
  });
});
