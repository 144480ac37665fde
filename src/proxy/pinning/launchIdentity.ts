/**
 * Whose pins a server's are: its launch identity, the SHA-256 of how it is launched, as
 * canonical JSON: a stdio server's `command` and `args`, a remote server's `url`, as the config
 * writes them (configTypes.ts `written`: before `${...}` expansion). Another server put under a
 * known name has another identity, so its tools are a first sight; the same launch under
 * another name keeps its pins.
 *
 * What is not part of it: `env`, `headers`, `cwd` and every other field (the server is the
 * same program with another token, in another folder); the values of `${...}` references (an
 * AppImage is mounted at a new path at each launch, `${workspaceFolder}` moves with the
 * project, a `${secret:NAME}` is read from the keychain). Only the hash is written, so a value
 * written in clear in `args` or `url` never reaches the pin file.
 */
import type { ServerEntry } from '../config/configTypes.js';
import { canonicalJson, sha256 } from './canonicalTool.js';

export type Launch = { command: string; args: string[] } | { url: string };

/** The launch of `entry` as its config writes it; for an entry made in code, its expanded fields. */
export function launchOf(entry: ServerEntry): Launch {
  if (entry.kind === 'stdio') return entry.written ?? { command: entry.command, args: entry.args };
  return entry.written ?? { url: entry.url };
}

/** The hash that keys `entry`'s pins (64 hex digits). */
export function launchIdentity(entry: ServerEntry): string {
  return identityOf(launchOf(entry));
}

/** The hash of a launch as canonical JSON. */
export function identityOf(launch: Launch): string {
  return sha256(canonicalJson(launch));
}
