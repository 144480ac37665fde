// src/proxy/sandbox/: a stdio server confined to what the user allowed (decisions/0048-sandbox.md).
/**
 * A server's launch (process/serverLaunch.ts) turned into the same launch inside its sandbox:
 * on Linux under bubblewrap (bwrapArgs.ts), on macOS under `sandbox-exec` with a generated
 * profile (seatbeltProfile.ts); with the private HOME created, the command's installation found
 * (installPaths.ts) and, for an allow-list, the filtering proxy started (filterProxy.ts), which
 * {@link SandboxedLaunch.dispose} stops. A sandbox that cannot be had (no bwrap, user namespaces
 * refused, no socat for an allow-list, Windows) is a {@link SandboxUnavailableError} naming the
 * reason and the fix: the server is then not started, never started without it.
 */
import { execFile } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxPolicy } from '../../shared/sandbox.js';
import type { Logger } from '../common/logger.js';
import type { ServerLaunch } from '../process/serverLaunch.js';
import { findCommand } from '../process/commandResolver.js';
import { bwrapArgs, PROXY_PORT, proxyEnv } from './bwrapArgs.js';
import { startFilterProxy, type FilterProxy } from './filterProxy.js';
import { parseHostPattern, type HostRule } from './hostPattern.js';
import { installPlan, under, type Mount } from './installPaths.js';
import { npxFetch } from './npxFetch.js';
import { sandboxHome } from './sandboxHome.js';
import { seatbeltProfile } from './seatbeltProfile.js';
import { denialWatcher } from './denialLines.js';

/** A sandbox asked for that this computer cannot give; the message names the reason and the fix. */
export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';
}

export interface SandboxedLaunch {
  launch: ServerLaunch;
  /** Each stderr line of the server: refusals it shows are logged (denialLines.ts). */
  onStderr: (line: string) => void;
  /** Stops what the sandbox started beside the server (the proxy). */
  dispose: () => Promise<void>;
}

export interface SandboxRequest {
  name: string;
  policy: SandboxPolicy;
  launch: ServerLaunch;
  cwd?: string;
  log: Logger;
  platform?: NodeJS.Platform;
  /** Where bwrap and socat are looked for; default the process's PATH. */
  toolPath?: string;
}

const PROBE_TIMEOUT_MS = 10_000;
/** One probe per bwrap binary and process: whether it can make the namespaces here. */
const probes = new Map<string, Promise<string | undefined>>();

function probe(bwrap: string): Promise<string | undefined> {
  let p = probes.get(bwrap);
  if (!p) {
    p = new Promise((resolve) => {
      const args = [
        '--unshare-user',
        '--unshare-pid',
        '--unshare-net',
        '--ro-bind',
        '/',
        '/',
        '--proc',
        '/proc',
        'true',
      ];
      execFile(bwrap, args, { timeout: PROBE_TIMEOUT_MS }, (err, _out, stderr) =>
        resolve(err ? (String(stderr).trim().split('\n').pop() ?? '').slice(0, 300) || err.message : undefined),
      );
    });
    probes.set(bwrap, p);
  }
  return p;
}

function unavailable(name: string, why: string, fix: string): SandboxUnavailableError {
  return new SandboxUnavailableError(
    `cannot start server '${name}' in its sandbox: ${why}; ${fix}. It is not started without its sandbox`,
  );
}

function rules(policy: SandboxPolicy): HostRule[] {
  if (typeof policy.network !== 'object') return [];
  return policy.network.allow.map((h) => parseHostPattern(h)).filter((r): r is HostRule => !('error' in r));
}

function realOf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function systemEntry(p: string): { kind: 'dir' } | { kind: 'link'; target: string } | undefined {
  try {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return statSync(p).isDirectory() ? { kind: 'link', target: readlinkSync(p) } : undefined;
    return st.isDirectory() ? { kind: 'dir' } : undefined;
  } catch {
    return undefined;
  }
}

/** The folder a server starts in: its `cwd` when the sandbox lets it read it, else (undefined) its private HOME. */
function insideCwd(r: SandboxRequest): string | undefined {
  const cwd = r.cwd;
  if (cwd === undefined) return undefined;
  if ([...r.policy.read, ...r.policy.write].some((p) => under(cwd, p))) return cwd;
  throw unavailable(
    r.name,
    `its cwd '${cwd}' is outside the sandbox's paths`,
    'add it to sandbox.filesystem.read (or .write), or remove cwd',
  );
}

/** The launch inside the sandbox; see the file comment. */
export async function sandboxLaunch(r: SandboxRequest): Promise<SandboxedLaunch> {
  const platform = r.platform ?? process.platform;
  const toolPath = r.toolPath ?? process.env.PATH;
  const home = process.env.HOME || homedir();
  const allow = typeof r.policy.network === 'object';
  const privateHome = sandboxHome(r.name);
  const onStderr = denialWatcher(r.policy, home, (text) => r.log.warn(text));
  if (platform === 'win32')
    throw unavailable(
      r.name,
      'Windows has no sandbox the runtime can use (AppContainer and job objects do not confine what a desktop program reads)',
      'set "sandbox": false for it, or run it in WSL or a container',
    );
  const installFor = (path: string) =>
    installPlan({
      command: r.launch.plan.command,
      args: r.launch.plan.args,
      path,
      home,
      // npx in the server reads its own environment's cache setting, else ~/.npm.
      npmCache: r.launch.env.npm_config_cache,
      // Linux mounts the private HOME at the user's; macOS points HOME at it.
      privateNpmCache: {
        real: join(privateHome, '.npm'),
        inside: join(platform === 'darwin' ? privateHome : home, '.npm'),
      },
    });
  if (platform === 'darwin') return seatbelt(r, privateHome, installFor, onStderr);
  const bwrap = findCommand('bwrap', toolPath, undefined);
  if (!bwrap)
    throw unavailable(
      r.name,
      'bubblewrap (bwrap) is not installed',
      'install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)',
    );
  const socat = allow ? findCommand('socat', toolPath, undefined) : undefined;
  if (allow && !socat)
    throw unavailable(
      r.name,
      'its network allow-list needs socat, which is not installed',
      'install socat (Debian, Ubuntu: apt-get install socat)',
    );
  const refused = await probe(bwrap);
  if (refused !== undefined)
    throw unavailable(
      r.name,
      `bubblewrap cannot create its namespaces here (${refused})`,
      'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 an AppArmor profile for bwrap)',
    );
  const cwd = insideCwd(r);
  mkdirSync(privateHome, { recursive: true, mode: 0o700 });
  const env = { ...r.launch.env };
  let install = installFor(env.PATH ?? '');
  if (install.npxFetch && r.policy.network !== 'all') {
    await fetchForNpx(r, install.npxFetch, install.mounts, { bwrap, socat, home, privateHome, cwd });
    install = installFor(env.PATH ?? '');
    if (install.npxFetch)
      throw new SandboxUnavailableError(
        `cannot start server '${r.name}': npx fetched ${install.npxFetch.join(', ')} but it names no command to run`,
      );
  }
  if (install.note) r.log.info(`sandbox: ${install.note}`);
  let proxy: FilterProxy | undefined;
  let socketDir: string | undefined;
  if (allow) {
    socketDir = mkdtempSync(join(tmpdir(), 'qiming-sandbox-'));
    proxy = await startFilterProxy(rules(r.policy), r.log, join(socketDir, 'proxy.sock'));
    Object.assign(env, proxyEnv(`http://127.0.0.1:${PROXY_PORT}`));
  }
  const args = bwrapArgs({
    policy: r.policy,
    command: install.command ?? r.launch.plan.command,
    args: install.args ?? r.launch.plan.args,
    home,
    privateHome,
    install: install.mounts,
    realOf,
    ...(cwd !== undefined ? { cwd } : {}),
    ...(proxy ? { proxySocket: proxy.where, socat } : {}),
    systemEntry,
  });
  env.HOME = home;
  env.TMPDIR = '/tmp';
  return {
    launch: { ...r.launch, plan: { ...r.launch.plan, command: bwrap, args }, env },
    onStderr,
    dispose: async () => {
      await proxy?.close();
      if (socketDir) rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

/**
 * `npx <package>` found in no cache: fetched inside the sandbox, only the registry reachable
 * (npxFetch.ts); its failure is the server's, with npm's reason.
 */
async function fetchForNpx(
  r: SandboxRequest,
  specs: string[],
  mounts: Mount[],
  at: { bwrap: string; socat: string | undefined; home: string; privateHome: string; cwd: string | undefined },
): Promise<void> {
  const toolPath = r.toolPath ?? process.env.PATH;
  const socat = at.socat ?? findCommand('socat', toolPath, undefined);
  if (!socat)
    throw unavailable(
      r.name,
      `npx must fetch ${specs.join(', ')} inside the sandbox, through its filtering proxy, which needs socat`,
      'install socat (Debian, Ubuntu: apt-get install socat)',
    );
  try {
    await npxFetch({
      specs,
      npx: r.launch.plan.command,
      env: r.launch.env,
      ...(at.cwd !== undefined ? { cwd: at.cwd } : {}),
      bwrap: at.bwrap,
      socat,
      install: mounts,
      box: { home: at.home, privateHome: at.privateHome, realOf, systemEntry },
      log: r.log,
    });
  } catch (err) {
    throw new SandboxUnavailableError(`cannot start server '${r.name}': ${(err as Error).message}`);
  }
}

/** macOS: `sandbox-exec -p <profile>`, HOME and TMPDIR pointing at the private folders. */
async function seatbelt(
  r: SandboxRequest,
  privateHome: string,
  installFor: (path: string) => ReturnType<typeof installPlan>,
  onStderr: (line: string) => void,
): Promise<SandboxedLaunch> {
  const sandboxExec = '/usr/bin/sandbox-exec';
  if (systemEntry('/usr/bin') === undefined || !findCommand('sandbox-exec', '/usr/bin', undefined))
    throw unavailable(r.name, 'sandbox-exec is missing from /usr/bin', 'use a macOS that ships it');
  const tmp = join(privateHome, '..', 'tmp');
  mkdirSync(privateHome, { recursive: true, mode: 0o700 });
  mkdirSync(tmp, { recursive: true, mode: 0o700 });
  const env = { ...r.launch.env };
  const install = installFor(env.PATH ?? '');
  const proxy = typeof r.policy.network === 'object' ? await startFilterProxy(rules(r.policy), r.log) : undefined;
  if (proxy) Object.assign(env, proxyEnv(proxy.where));
  const profile = seatbeltProfile({
    policy: r.policy,
    privateHome,
    tmp,
    install: install.mounts.map((m) => m.source),
    ...(proxy?.port !== undefined ? { proxyPort: proxy.port } : {}),
  });
  env.HOME = privateHome;
  env.TMPDIR = tmp;
  const command = install.command ?? r.launch.plan.command;
  const args = ['-p', profile, command, ...(install.args ?? r.launch.plan.args)];
  return {
    launch: { ...r.launch, plan: { ...r.launch.plan, command: sandboxExec, args }, env },
    onStderr,
    dispose: async () => proxy?.close(),
  };
}
