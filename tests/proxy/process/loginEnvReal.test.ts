// The user's environment for real: the bridge and the stdio proxy started with
// PATH=/usr/bin:/bin, as a desktop launcher starts an app, and SHELL pointing at a real shell
// (bash with a temp HOME's .bash_profile, dash with $ENV) whose profile adds a folder holding
// a server command (a script that runs our fixture server with node's absolute path). The
// server starts and is ready, and the status says which command and PATH it got. Also: a
// profile that prints, one that hangs (deadline, fallback folders, the shell gone), a missing
// shell, a command found nowhere, an entry's env.PATH winning, and folders handed down.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupBridges, startBridge, tempDir, trackPids, waitNotRunning } from '../../helpers/bridgeProcess.js';
import { spawn } from 'node:child_process';
import { CLI, connectProxy, FIXTURE } from '../../helpers/proxyCli.js';
import { waitFor } from '../../helpers/waitFor.js';

afterEach(cleanupBridges);

const GUI_PATH = '/usr/bin:/bin';

/** The process groups the registry files in `run` list (a file being replaced is read next time). */
function registeredGroups(run: string): number[] {
  if (!existsSync(run)) return [];
  return readdirSync(run)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => {
      try {
        return (JSON.parse(readFileSync(join(run, f), 'utf8')) as { groups: { pgid: number }[] }).groups.map(
          (g) => g.pgid,
        );
      } catch {
        return [];
      }
    });
}

/** A temp HOME; `server(dir, name)` writes a command that starts the fixture as `name`. */
function world() {
  const root = tempDir('qiming-loginenv-');
  const server = (dir: string, file: string, name: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, file), `#!/bin/sh\nexec "${process.execPath}" "${FIXTURE}" --name ${name}\n`);
    chmodSync(join(dir, file), 0o755);
  };
  const profile = (text: string) => writeFileSync(join(root, '.bash_profile'), text);
  const env = (extra: Record<string, string> = {}) => ({
    HOME: root,
    PATH: GUI_PATH,
    SHELL: '/bin/bash',
    QIMING_LOGIN_PATH: undefined,
    ...extra,
  });
  /** For connectProxy (which starts from process.env): the same without the removals. */
  const proxyEnv = (extra: Record<string, string> = {}) => ({
    HOME: root,
    PATH: GUI_PATH,
    SHELL: '/bin/bash',
    ...extra,
  });
  return { root, tools: join(root, 'tools'), server, profile, env, proxyEnv };
}

describe('servers start in the login-shell environment', () => {
  it('bridge: a command only the login profile puts on PATH starts and is ready; env.PATH of an entry wins', async () => {
    const w = world();
    w.server(w.tools, 'qiming-test-server', 'viashell');
    w.server(join(w.root, 'mine'), 'qiming-test-server', 'entrypath');
    w.profile(`echo "Last login: today"; printf '\\033[1mfancy prompt\\033[0m'\nexport PATH="${w.tools}:$PATH"\n`);
    const b = await startBridge({
      env: w.env(),
      config: {
        mcpServers: {
          s: { command: 'qiming-test-server' },
          e: { command: 'qiming-test-server', env: { PATH: `${join(w.root, 'mine')}:${GUI_PATH}` } },
        },
      },
    });
    expect(b.ready!.servers).toEqual([
      { id: 's', state: 'ready', tools: 7 },
      { id: 'e', state: 'ready', tools: 7 },
    ]);
    const s = await b.server('s');
    // The login folder is added behind the bridge's own PATH, home written ~.
    expect(s.launch).toEqual({
      command: '~/tools/qiming-test-server',
      path: expect.stringMatching(/^\/usr\/bin:\/bin:.*~\/tools/),
      pathFrom: 'login-shell',
    });
    expect((await b.server('e')).launch).toEqual({
      command: '~/mine/qiming-test-server',
      path: `~/mine:${GUI_PATH}`,
      pathFrom: 'entry',
    });
    const { client } = await b.client('/mcp/s');
    expect((await client.listTools()).tools.find((t) => t.name === 'echo')?.description).toBe('echo from viashell');
    const { client: ce } = await b.client('/mcp/e');
    expect((await ce.listTools()).tools.find((t) => t.name === 'echo')?.description).toBe('echo from entrypath');
    expect(b.stderr).toMatch(/\[info\] \[s\] login shell \/bin\/bash read in \d+ ms/);
    // Read once per process: the second server's start did not log a second read.
    expect(b.stderr.match(/login shell \/bin\/bash read in/g)).toHaveLength(1);
  }, 30_000);

  it('stdio proxy (dash, profile in $ENV): the server is ready and the debug log shows its PATH', async () => {
    const w = world();
    w.server(w.tools, 'qiming-test-server', 'viadash');
    writeFileSync(join(w.root, 'shrc'), `echo dash says hi\nPATH="$PATH:${w.tools}"; export PATH\n`);
    const config = JSON.stringify({ mcpServers: { s: { command: 'qiming-test-server' } } });
    const p = await connectProxy(
      ['--config', config, '--log-level', 'debug'],
      {},
      w.proxyEnv({ SHELL: '/bin/sh', ENV: join(w.root, 'shrc') }),
    );
    try {
      expect((await p.client.listTools()).tools.find((t) => t.name === 's__echo')?.description).toBe(
        'echo from viadash',
      );
      // /etc/profile (dash reads it as a login shell) may add system folders before ours.
      expect(p.stderr.join('\n')).toMatch(
        /\[debug\] \[s\] command ~\/tools\/qiming-test-server, PATH \(login-shell\) \/usr\/bin:\/bin:(\S+:)?~\/tools\n/,
      );
    } finally {
      await p.close();
    }
  }, 30_000);

  it('a #!/usr/bin/env script on the own PATH whose interpreter only the login PATH has (npx without node): ready', async () => {
    const w = world();
    // `qiming-node` stands for node (a real /usr/bin/node may exist here), only in the profile's folder.
    mkdirSync(w.tools);
    symlinkSync(process.execPath, join(w.tools, 'qiming-node'));
    const own = join(w.root, 'own');
    mkdirSync(own);
    const script = join(own, 'qiming-envnode-server');
    writeFileSync(
      script,
      `#!/usr/bin/env qiming-node\nprocess.argv.push('--name', 'envnode');\nimport(${JSON.stringify(pathToFileURL(FIXTURE).href)});\n`,
    );
    chmodSync(script, 0o755);
    w.profile(`export PATH="$PATH:${w.tools}"\n`);
    const config = JSON.stringify({ mcpServers: { s: { command: 'qiming-envnode-server' } } });
    const p = await connectProxy(
      ['--config', config, '--log-level', 'debug'],
      {},
      w.proxyEnv({ PATH: `${GUI_PATH}:${own}` }),
    );
    try {
      expect((await p.client.listTools()).tools.find((t) => t.name === 's__echo')?.description).toBe(
        'echo from envnode',
      );
      expect(p.stderr.join('\n')).toMatch(
        /\[debug\] \[s\] command ~\/own\/qiming-envnode-server, PATH \(login-shell\) \/usr\/bin:\/bin:~\/own:.*~\/tools/,
      );
    } finally {
      await p.close();
    }
  }, 30_000);

  it('a profile that hangs: the deadline ends the shell, the well-known folders are used, the server is ready', async () => {
    const w = world();
    w.server(join(w.root, '.local', 'bin'), 'qiming-test-server', 'fallback');
    w.profile(`echo $$ > "${w.root}/shell.pid"\nsleep 60\n`);
    const b = await startBridge({
      env: w.env({ QIMING_LOGIN_SHELL_TIMEOUT_MS: '1500' }),
      config: { mcpServers: { s: { command: 'qiming-test-server' } } },
    });
    expect(b.ready!.servers[0]).toMatchObject({ id: 's', state: 'ready' });
    expect((await b.server('s')).launch).toMatchObject({
      pathFrom: 'fallback',
      path: expect.stringContaining(`${GUI_PATH}:~/.local/bin`),
    });
    expect(b.stderr).toMatch(
      /\[warn\] \[s\] cannot read the login shell's PATH \(\/bin\/bash: no answer within 1500 ms.*\); using well-known tool folders: ~\/.local\/bin/,
    );
    const shell = Number(readFileSync(join(w.root, 'shell.pid'), 'utf8'));
    trackPids(shell);
    expect(await waitNotRunning(shell, 3000)).toBe(true);
  }, 30_000);

  it('a proxy SIGKILLed while its login shell hangs leaves no shell behind (the group watcher ends it)', async () => {
    const w = world();
    w.profile(`echo $$ > "${w.root}/shell.pid"\nsleep 60\n`);
    const config = JSON.stringify({ mcpServers: { s: { command: 'qiming-test-server' } } });
    const run = join(w.root, 'run');
    const proxy = spawn(process.execPath, [CLI, '--config', config], {
      env: { ...process.env, ...w.proxyEnv({ QIMING_MCP_RUNTIME_DIR: run }) },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    trackPids(proxy.pid);
    const pidFile = join(w.root, 'shell.pid');
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 10_000, 'the login shell');
    const shell = Number(readFileSync(pidFile, 'utf8'));
    trackPids(shell);
    // Past the instant between the shell's spawn and its record reaching the watcher (the same
    // window every server start has): the proxy writes its registry file right after telling
    // the watcher, so the shell's group listed there has been told.
    await waitFor(() => registeredGroups(run).includes(shell), 10_000, "the shell's group in the registry");
    proxy.kill('SIGKILL');
    expect(await waitNotRunning(shell, 5000), 'the hanging login shell').toBe(true);
  }, 30_000);

  it('a missing shell: the well-known folders are used', async () => {
    const w = world();
    w.server(join(w.root, '.cargo', 'bin'), 'qiming-test-server', 'cargo');
    const b = await startBridge({
      env: w.env({ SHELL: join(w.root, 'no-such', 'zsh') }),
      config: { mcpServers: { s: { command: 'qiming-test-server' } } },
    });
    expect(b.ready!.servers[0]).toMatchObject({ id: 's', state: 'ready' });
    expect(b.stderr).toMatch(/no-such\/zsh not found\); using well-known tool folders: ~\/.cargo\/bin/);
  }, 30_000);

  it('a command found nowhere: lastError names it, the PATH searched with ~, and what to do', async () => {
    const w = world();
    w.profile(`export PATH="$PATH:${w.tools}"\n`);
    mkdirSync(w.tools);
    const b = await startBridge({ env: w.env(), config: { mcpServers: { s: { command: 'qiming-absent-server' } } } });
    // /etc/profile may add system folders between the bridge's own PATH and the profile's.
    const want =
      /command 'qiming-absent-server' not found on PATH \/usr\/bin:\/bin:(\S+:)?~\/tools; install qiming-absent-server, or set "command" to an absolute path$/;
    expect(b.ready!.servers[0].error).toMatch(/^start failed: cannot start server 's': /);
    expect(b.ready!.servers[0].error).toMatch(want);
    expect((await b.server('s')).lastError).toMatch(want);
    expect(b.stderr).toMatch(
      /\[error\] \[s\] cannot start server 's': command 'qiming-absent-server' not found on PATH .*~\/tools; install/,
    );
  }, 30_000);

  it('folders handed down in QIMING_LOGIN_PATH: no shell runs, the server gets them', async () => {
    const w = world();
    w.server(w.tools, 'qiming-test-server', 'handed');
    const shell = join(w.root, 'bash');
    writeFileSync(shell, `#!/bin/sh\ntouch "${w.root}/shell-ran"\n`);
    chmodSync(shell, 0o755);
    const config = JSON.stringify({ mcpServers: { s: { command: 'qiming-test-server' } } });
    const p = await connectProxy(
      ['--config', config, '--log-level', 'debug'],
      {},
      w.proxyEnv({ SHELL: shell, QIMING_LOGIN_PATH: w.tools }),
    );
    try {
      expect((await p.client.listTools()).tools.find((t) => t.name === 's__echo')?.description).toBe(
        'echo from handed',
      );
      expect(p.stderr.join('\n')).toContain(`PATH (handed) ${GUI_PATH}:~/tools`);
      expect(existsSync(join(w.root, 'shell-ran'))).toBe(false);
    } finally {
      await p.close();
    }
  }, 30_000);
});
