/**
 * `${secret:NAME}` in `persistent: false` entries, which the agents' own stdio proxies run:
 * those proxies do not get the app's key (they are the agent's children), so the app reads
 * the values from its store (appSecrets.ts) when it builds a session's entries. Each
 * reference becomes `${QIMING_SECRET_S<n>}` and the value that variable, which the proxy's
 * environment carries (never argv: acp.ts) and the proxy expands as it loads its config; the
 * servers it starts never inherit it (common/envNames.ts `isRuntimeSecret`). A reference the
 * store cannot resolve is left as it is: that entry fails in the session's proxy, naming the
 * secret, and the app's log says why.
 */
import { SECRET_VAR_PREFIX, type SecretStore } from '../../proxy/index.js';

const REF_RE = /\$\{secret:([A-Za-z0-9_./-]{1,128})\}/g;
/** Entries are JSON from the user's config: a bound on how deep a walk goes. */
const MAX_DEPTH = 32;

export interface SessionSecrets {
  /** The entries with every resolved reference replaced by its variable. */
  servers: Record<string, unknown>;
  /** The variables' values, for the proxy's environment. */
  env: Record<string, string>;
  /** Names that stayed references, with why. */
  unresolved: { name: string; why: string }[];
}

function names(v: unknown, out: Set<string>, depth = 0): void {
  if (typeof v === 'string') for (const m of v.matchAll(REF_RE)) out.add(m[1]);
  else if (depth < MAX_DEPTH && v && typeof v === 'object')
    for (const x of Array.isArray(v) ? v : Object.values(v)) names(x, out, depth + 1);
}

function replaced(v: unknown, vars: Map<string, string>, depth = 0): unknown {
  if (typeof v === 'string')
    return v.replace(REF_RE, (ref, name: string) => (vars.has(name) ? `\${${vars.get(name)}}` : ref));
  if (depth >= MAX_DEPTH || !v || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => replaced(x, vars, depth + 1));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replaced(x, vars, depth + 1)]));
}

/** Resolves the `${secret:NAME}`s of `entries` from `store` (see the file comment). */
export async function resolveSessionSecrets(
  entries: Readonly<Record<string, unknown>>,
  store: SecretStore | undefined,
): Promise<SessionSecrets> {
  const wanted = new Set<string>();
  names(entries, wanted);
  if (wanted.size === 0) return { servers: { ...entries }, env: {}, unresolved: [] };
  const unresolved: SessionSecrets['unresolved'] = [];
  const env: Record<string, string> = {};
  const vars = new Map<string, string>();
  const ok = store ? await store.available() : { ok: false as const, reason: 'this app keeps no secret store' };
  if (!ok.ok) for (const name of wanted) unresolved.push({ name, why: ok.reason });
  else {
    let n = 1;
    for (const name of wanted) {
      let value: string | undefined;
      try {
        value = await store!.get(name);
      } catch (err) {
        unresolved.push({ name, why: (err as Error).message.split('\n')[0] });
        continue;
      }
      if (value === undefined) {
        unresolved.push({ name, why: "it is not in the app's secret store" });
        continue;
      }
      const variable = `${SECRET_VAR_PREFIX}S${n++}`;
      vars.set(name, variable);
      env[variable] = value;
    }
  }
  return { servers: replaced(entries, vars) as Record<string, unknown>, env, unresolved };
}
