/**
 * What a sandboxed server was refused, read from what it says on stderr: on Linux the kernel
 * tells the server only an errno (a path outside the sandbox is absent, ENOENT; a read-only
 * one EROFS or EACCES; a connection without network ENETUNREACH, ECONNREFUSED or a failed
 * name lookup), and servers print such errors with the path or address. A line naming an errno
 * and a path outside what the sandbox lets it touch, or a network errno while its network is
 * not `all`, becomes one log line saying what was refused and which setting widens it: at
 * most once per path or address, and at most {@link MAX_DENIALS} in all.
 */
import type { SandboxPolicy } from '../../shared/sandbox.js';
import { isSystemPath, under } from './installPaths.js';

export const MAX_DENIALS = 50;
const FILE_ERRNO = /\b(ENOENT|EACCES|EPERM|EROFS)\b/;
const NET_ERRNO = /\b(ENETUNREACH|ECONNREFUSED|EAI_AGAIN|ENOTFOUND|EHOSTUNREACH)\b/;
/** An absolute path in quotes, or after a space or `:`. */
const PATH_RE = /(?:'|"|\s|^)(\/[^\s'",)]+)/;
const ADDRESS_RE =
  /\b((?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?|\[[0-9a-f:]+\](?::\d{1,5})?|[a-z0-9.-]+\.[a-z]{2,}(?::\d{1,5})?)\b/i;

/** The refusal a stderr line shows, as the log should say it; undefined when it shows none. */
export function denialOf(line: string, policy: SandboxPolicy, home: string): { key: string; text: string } | undefined {
  const file = FILE_ERRNO.exec(line);
  if (file) {
    const path = PATH_RE.exec(line)?.[1];
    if (!path) return undefined;
    const listed = policy.write.some((p) => under(path, p)) || policy.read.some((p) => under(path, p));
    const errno = file[1];
    // The private HOME and /tmp are writable: a refused write elsewhere is a path not in `write`.
    if (errno !== 'ENOENT' && !policy.write.some((p) => under(path, p)))
      return {
        key: `w:${path}`,
        text: `sandbox refused writing ${path} (${errno}): add it to sandbox.filesystem.write to allow it`,
      };
    // Absent inside: the user's file, which the private HOME and the paths not listed hide.
    if (errno === 'ENOENT' && !listed && (under(path, home) || !(isSystemPath(path) || under(path, '/tmp'))))
      return {
        key: `r:${path}`,
        text: `sandbox hid ${path} (ENOENT): outside its paths (its HOME is a private one); add it to sandbox.filesystem.read or .write to allow it`,
      };
    return undefined;
  }
  const net = NET_ERRNO.exec(line);
  if (net && policy.network !== 'all') {
    const address = ADDRESS_RE.exec(line)?.[1] ?? 'the network';
    const how =
      policy.network === 'none' ? 'its network is "none"' : 'it reaches only its allow-list, through the proxy';
    return {
      key: `n:${address}`,
      text: `sandbox refused a connection to ${address} (${net[1]}): ${how}; widen sandbox.network to allow it`,
    };
  }
  return undefined;
}

/** A server's stderr watcher: calls `report` with each new refusal (see the file comment). */
export function denialWatcher(
  policy: SandboxPolicy,
  home: string,
  report: (text: string) => void,
): (line: string) => void {
  const seen = new Set<string>();
  return (line) => {
    if (seen.size >= MAX_DENIALS) return;
    const d = denialOf(line, policy, home);
    if (!d || seen.has(d.key)) return;
    seen.add(d.key);
    report(d.text);
  };
}
