/**
 * The sandbox an install proposes for a stdio server, from what its document fixes and the
 * user typed: of the user's files, the paths its arguments and variables name (a filesystem
 * server's root, a memory server's file), written, as such a server works there: a path that
 * does not exist yet stands for its folder, when that exists; and of the network, the hosts of the URLs its
 * arguments and variables hold (a remote API's base URL) as an allow-list, none when it names
 * none. The system's folders and the runtime's data folder (a bundle's own files) are its
 * installation, which a sandbox reads anyway; what the user typed into a secret field is
 * never looked at. The consent shows it and the user changes it before Confirm.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import type { SandboxPolicy } from '../../shared/sandbox.js';
import { isSystemPath, under } from '../sandbox/installPaths.js';
import { parseHostPattern } from '../sandbox/hostPattern.js';
import { MAX_SANDBOX_ITEMS } from '../sandbox/sandboxConfig.js';
import { hasSecret, realText, type PlanText } from './planText.js';
import type { PlannedEntry } from './plannedEntry.js';

const URL_RE = /\bhttps?:\/\/[^\s"'<>]+/gi;

/** The path an argument names (`/a`, `~/a`, or the value of `--flag=/a`), if any. */
function pathOf(arg: string): string | undefined {
  const value = /^--?[A-Za-z][\w-]*=/.test(arg) ? arg.slice(arg.indexOf('=') + 1) : arg;
  if (value === '~' || value.startsWith('~/')) return value;
  return isAbsolute(value) && value.startsWith('/') ? value : undefined;
}

/** The `host[:port]` of each http(s) URL in `text`, as an allow-list names it. */
function hostsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(URL_RE)) {
    let url: URL;
    try {
      url = new URL(m[0]);
    } catch {
      continue;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const pattern = url.port ? `${host}:${url.port}` : host;
    if (!('error' in parseHostPattern(pattern))) out.push(pattern);
  }
  return out;
}

/** The path written for `p`: itself when it exists (or starts with `~`), else its folder when that exists. */
function existing(p: string): string | undefined {
  if (p.startsWith('~') || existsSync(p)) return p;
  const dir = dirname(p);
  return dir !== p && existsSync(dir) ? dir : undefined;
}

export function proposedSandbox(e: PlannedEntry, dataDir: string): SandboxPolicy {
  const plain = (t: PlanText) => (hasSecret(t) ? undefined : realText(t));
  const texts = [...(e.args ?? []), ...Object.values(e.env ?? {})]
    .map(plain)
    .filter((a): a is string => a !== undefined);
  const write = new Set<string>();
  for (const t of texts) {
    const named = pathOf(t);
    const p = named === undefined ? undefined : existing(named);
    if (p !== undefined && !isSystemPath(p) && !under(p, dataDir)) write.add(p);
  }
  const hosts = new Set<string>();
  for (const text of texts) for (const h of hostsOf(text)) hosts.add(h);
  return {
    read: [],
    write: [...write].slice(0, MAX_SANDBOX_ITEMS),
    network: hosts.size > 0 ? { allow: [...hosts].slice(0, MAX_SANDBOX_ITEMS) } : 'none',
  };
}
