/**
 * The bubblewrap command line of a sandboxed server (Linux), a pure function of its policy:
 * new user, PID, IPC, UTS and cgroup namespaces, and a network namespace unless `network` is
 * `all` (`none`: loopback only; an allow-list: loopback, where socat listens on
 * {@link PROXY_PORT} and carries each connection to the runtime's filtering proxy through a
 * Unix socket mounted in). The system's folders read-only, a fresh /tmp, /dev and /proc, the
 * private HOME mounted over the user's, the command's installation read-only, the `read` paths
 * read-only and the `write` paths writable, each at the path the user wrote. `--die-with-parent`
 * and the PID namespace end everything inside when bwrap or the server ends; no
 * `--new-session`: the server stays in the runtime's process group (a spawned server has no
 * terminal to steal input from).
 */
import type { SandboxPolicy } from '../../shared/sandbox.js';
import { SYSTEM_DIRS, type Mount } from './installPaths.js';

/** Where socat listens inside an allow-listed server's network namespace. */
export const PROXY_PORT = 3128;
/** Where the filtering proxy's socket is mounted inside. */
export const PROXY_SOCKET_INSIDE = '/run/qiming-sandbox/proxy.sock';

export interface BwrapInput {
  policy: SandboxPolicy;
  command: string;
  args: readonly string[];
  /** The user's home, where the private one is mounted. */
  home: string;
  /** The server's private HOME folder (its data, kept across restarts). */
  privateHome: string;
  /** The command's installation (installPaths.ts). */
  install: readonly Mount[];
  /** The real paths of `policy.read` and `policy.write`, by the path written. */
  realOf: (p: string) => string;
  /** The folder it starts in (default its HOME). */
  cwd?: string;
  /** The filtering proxy's socket (an allow-list). */
  proxySocket?: string;
  /** The socat inside (an allow-list). */
  socat?: string;
  /** Seam: what a system folder is (`dir`, `link` to a target, absent). */
  systemEntry: (p: string) => { kind: 'dir' } | { kind: 'link'; target: string } | undefined;
}

/** bwrap's arguments, ending with `--`, the command and its arguments. */
export function bwrapArgs(i: BwrapInput): string[] {
  const a = ['--die-with-parent', '--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts'];
  a.push('--unshare-cgroup-try');
  if (i.policy.network !== 'all') a.push('--unshare-net');
  for (const dir of SYSTEM_DIRS) {
    const e = i.systemEntry(dir);
    if (e?.kind === 'dir') a.push('--ro-bind', dir, dir);
    else if (e?.kind === 'link') a.push('--symlink', e.target, dir);
  }
  // With the host's network, name resolution may read systemd-resolved's stub file.
  if (i.policy.network === 'all' && i.systemEntry('/run/systemd/resolve')?.kind === 'dir')
    a.push('--ro-bind', '/run/systemd/resolve', '/run/systemd/resolve');
  a.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', '/var/tmp', '--tmpfs', '/run');
  a.push('--bind', i.privateHome, i.home);
  // Shorter paths first, so a path inside another is mounted over it.
  const byDepth = <T>(xs: T[], key: (x: T) => string) => [...xs].sort((x, y) => key(x).length - key(y).length);
  for (const m of byDepth([...i.install], (m) => m.dest)) a.push('--ro-bind', m.source, m.dest);
  const files = [...i.policy.read.map((p) => ({ p, rw: false })), ...i.policy.write.map((p) => ({ p, rw: true }))];
  for (const f of byDepth(files, (f) => f.p)) a.push(f.rw ? '--bind' : '--ro-bind', i.realOf(f.p), f.p);
  if (i.proxySocket) a.push('--bind', i.proxySocket, PROXY_SOCKET_INSIDE);
  a.push('--chdir', i.cwd ?? i.home, '--');
  if (!i.proxySocket) return [...a, i.command, ...i.args];
  // socat first, in the background; `exec` keeps the server as the process bwrap waits for.
  const relay =
    `${i.socat ?? 'socat'} TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr ` +
    `UNIX-CONNECT:${PROXY_SOCKET_INSIDE} 2>/dev/null & exec "$@"`;
  return [...a, '/bin/sh', '-c', relay, 'sh', i.command, ...i.args];
}

/** The variables an allow-listed server gets, so HTTP clients send through the proxy. */
export function proxyEnv(url: string): Record<string, string> {
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    // Node 22.21+/24 honour the variables above for fetch and http(s) only with this set.
    NODE_USE_ENV_PROXY: '1',
  };
}
