/**
 * The Seatbelt profile of a sandboxed server (macOS, run as `sandbox-exec -p <profile> <command>`),
 * a pure function of its policy: everything denied, then allowed: running programs, the
 * system's folders read-only, the private HOME and a temporary folder read-write, the command's
 * installation and the `read` paths read-only, the `write` paths read-write, and the network as
 * `network` says (`none`: none; `all`: any; an allow-list: only the filtering proxy on
 * 127.0.0.1). Unlike bwrap, Seatbelt cannot mount the private HOME over the user's: HOME points
 * at the private folder and the user's is denied. Paths are quoted for the profile language.
 */
import type { SandboxPolicy } from '../../shared/sandbox.js';

/** Read-only on every Mac: the system, its frameworks and settings, the developer tools, Homebrew. */
export const MACOS_SYSTEM_PATHS = [
  '/System',
  '/Library',
  '/usr',
  '/bin',
  '/sbin',
  '/opt',
  '/Applications/Xcode.app',
  '/Library/Developer/CommandLineTools',
  '/private/etc',
  '/private/var/db/timezone',
  '/dev',
];

export interface SeatbeltInput {
  policy: SandboxPolicy;
  /** The server's private HOME (its data, kept across restarts). */
  privateHome: string;
  /** Its private temporary folder (TMPDIR). */
  tmp: string;
  /** The command's installation, read-only (installPaths.ts). */
  install: readonly string[];
  /** The filtering proxy's port on 127.0.0.1 (an allow-list). */
  proxyPort?: number;
}

/** A string as a Seatbelt (TinyScheme) literal. */
export function sbString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const subpaths = (paths: readonly string[]) => paths.map((p) => `(subpath ${sbString(p)})`).join(' ');

/** The profile text; see the file comment. */
export function seatbeltProfile(i: SeatbeltInput): string {
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-exec process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    '(allow ipc-posix-shm)',
    '(allow file-read-metadata)',
    '(allow file-read-data (literal "/"))',
    `(allow file-read* ${subpaths(MACOS_SYSTEM_PATHS)})`,
    '(allow file-write-data (literal "/dev/null") (literal "/dev/tty"))',
    `(allow file-read* file-write* ${subpaths([i.privateHome, i.tmp])})`,
  ];
  if (i.install.length) lines.push(`(allow file-read* ${subpaths(i.install)})`);
  if (i.policy.read.length) lines.push(`(allow file-read* ${subpaths(i.policy.read)})`);
  if (i.policy.write.length) lines.push(`(allow file-read* file-write* ${subpaths(i.policy.write)})`);
  if (i.policy.network === 'all') lines.push('(allow network*)', '(allow system-socket)');
  else if (typeof i.policy.network === 'object' && i.proxyPort !== undefined)
    lines.push(`(allow network-outbound (remote ip ${sbString(`localhost:${i.proxyPort}`)}))`);
  return lines.join('\n') + '\n';
}
