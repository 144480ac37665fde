/**
 * A stdio server's sandbox as every layer speaks it: what it may read, write and reach
 * (src/proxy/sandbox/), and the one line the panel and the logs say of it.
 */

/** `none`: no network at all; `all`: the host's network; `allow`: HTTP(S) through a filtering proxy to these hosts only. */
export type SandboxNetwork = 'none' | 'all' | { allow: string[] };

/**
 * An entry's own `"sandbox"` as the config file writes it (before checking): `true` (no paths,
 * no network), `false` (none), or the paths and the network it allows.
 */
export type SandboxSetting = boolean | { filesystem?: { read?: string[]; write?: string[] }; network?: SandboxNetwork };

/** A sandbox resolved from the config: absolute paths of the user's files, `~` and variables expanded. */
export interface SandboxPolicy {
  /** Folders and files read-only. */
  read: string[];
  /** Folders and files read and written. */
  write: string[];
  network: SandboxNetwork;
}

/** What confines a sandboxed server: bubblewrap on Linux, Seatbelt on macOS; `unavailable` elsewhere. */
export type SandboxEngine = 'bubblewrap' | 'seatbelt' | 'unavailable';

/** `servers[].sandbox` in the status: the policy, its engine and the server's private HOME (`~` shortened). */
export interface SandboxStatus extends SandboxPolicy {
  engine: SandboxEngine;
  home: string;
}

/** `files: read a, b; write c; network: none` (the panel card's "Sandboxed: ..." line). */
export function sandboxSummary(p: SandboxPolicy): string {
  const files =
    p.read.length === 0 && p.write.length === 0
      ? 'files: none of yours'
      : `files: ${[
          p.read.length ? `read ${p.read.join(', ')}` : '',
          p.write.length ? `write ${p.write.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join('; ')}`;
  const net = typeof p.network === 'string' ? p.network : `only ${p.network.allow.join(', ')}`;
  return `${files}; network: ${net}`;
}

/**
 * Whether `v` can be an entry's own `"sandbox"` as a change or a confirm carries it (absent,
 * `null` for none, a boolean, or an object): its shape only, the config's check judges the rest.
 */
export function isSandboxSetting(v: unknown): v is SandboxSetting | null | undefined {
  return v === undefined || v === null || typeof v === 'boolean' || (typeof v === 'object' && !Array.isArray(v));
}
