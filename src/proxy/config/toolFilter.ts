/**
 * Tool allow/deny filtering and per-tool timeouts.
 *
 * Globs support only `*` (any run of characters, including none) and `?` (exactly one
 * character); every other character, `.` and `\` included, matches itself. Matching is
 * case-sensitive and whole-name, because MCP tool names are case-sensitive identifiers.
 */

/**
 * Which tools of one server are exposed.
 * - `deny` (globs) and `denyExact` (names) always win.
 * - When `allow` or `allowExact` is present (even empty), a tool must match one of them.
 * - `and`: further filters that must ALSO allow the tool. `mergeFilters` produces it when
 *   both sides carry allow lists, since "matches A and matches B" cannot be written as one
 *   list of globs.
 */
export interface ToolFilter {
  allow?: string[];
  deny?: string[];
  allowExact?: string[];
  denyExact?: string[];
  and?: ToolFilter[];
}

const compiled = new Map<string, RegExp>();

/** Compiles a `*` / `?` glob to an anchored RegExp (cached; globs come from config). */
export function globToRegExp(glob: string): RegExp {
  let re = compiled.get(glob);
  if (re) return re;
  let src = '';
  for (const ch of glob) {
    if (ch === '*') src += '[\\s\\S]*';
    else if (ch === '?') src += '[\\s\\S]';
    // Only syntax characters may be escaped under the `u` flag (`\-` would be an error).
    else src += ch.replace(/[\\^$.|+()[\]{}/]/g, '\\$&');
  }
  // `u` so that `?` consumes a whole astral character, not half a surrogate pair.
  re = new RegExp(`^${src}$`, 'u');
  if (compiled.size > 1000) compiled.clear();
  compiled.set(glob, re);
  return re;
}

/** True when `glob` contains a wildcard. */
export function isGlob(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

function matchesAny(globs: string[] | undefined, name: string): boolean {
  return globs !== undefined && globs.some((g) => globToRegExp(g).test(name));
}

/** Decides whether `name` passes `filter`: deny wins; allow lists restrict when present. */
export function isToolAllowed(filter: ToolFilter, name: string): boolean {
  if (filter.denyExact?.includes(name) || matchesAny(filter.deny, name)) return false;
  const restricted = filter.allow !== undefined || filter.allowExact !== undefined;
  if (restricted && !(filter.allowExact?.includes(name) || matchesAny(filter.allow, name))) return false;
  return (filter.and ?? []).every((f) => isToolAllowed(f, name));
}

function union(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  if (a === undefined) return b === undefined ? undefined : [...b];
  if (b === undefined) return [...a];
  return [...new Set([...a, ...b])];
}

function hasAllow(f: ToolFilter): boolean {
  return f.allow !== undefined || f.allowExact !== undefined;
}

/**
 * Combines a per-entry filter `a` with a later filter `b` (the CLI's `--allow-tools` /
 * `--deny-tools`). The result allows a tool only when both `a` and `b` allow it: deny lists
 * are united, and `b`'s allow lists narrow `a`'s rather than widen them.
 */
export function mergeFilters(a: ToolFilter, b: ToolFilter): ToolFilter {
  const out: ToolFilter = {};
  const deny = union(a.deny, b.deny);
  const denyExact = union(a.denyExact, b.denyExact);
  if (deny) out.deny = deny;
  if (denyExact) out.denyExact = denyExact;
  const and = [...(a.and ?? []), ...(b.and ?? [])];
  if (hasAllow(a) && hasAllow(b)) {
    if (a.allow) out.allow = [...a.allow];
    if (a.allowExact) out.allowExact = [...a.allowExact];
    const extra: ToolFilter = {};
    if (b.allow) extra.allow = [...b.allow];
    if (b.allowExact) extra.allowExact = [...b.allowExact];
    and.push(extra);
  } else {
    const src = hasAllow(a) ? a : b;
    if (src.allow) out.allow = [...src.allow];
    if (src.allowExact) out.allowExact = [...src.allowExact];
  }
  if (and.length > 0) out.and = and;
  return out;
}

/** Number of non-wildcard characters: the more literal a pattern, the more specific. */
function specificity(glob: string): number {
  let n = 0;
  for (const ch of glob) if (ch !== '*' && ch !== '?') n++;
  return n;
}

/**
 * Finds the timeout for `name` in one `{glob: ms}` map: an exact key wins, then the matching
 * glob with the most literal characters; ties go to the key written first.
 */
/** The glob patterns of a timeouts map, compiled once per map (lookups run on every call). */
const compiledTimeouts = new WeakMap<Record<string, number>, { re: RegExp; score: number; ms: number }[]>();

export function lookupToolTimeout(name: string, timeouts: Record<string, number>): number | undefined {
  if (Object.prototype.hasOwnProperty.call(timeouts, name)) return timeouts[name];
  let globs = compiledTimeouts.get(timeouts);
  if (!globs) {
    globs = Object.entries(timeouts)
      .filter(([glob]) => isGlob(glob))
      .map(([glob, ms]) => ({ re: globToRegExp(glob), score: specificity(glob), ms }));
    compiledTimeouts.set(timeouts, globs);
  }
  let best: number | undefined;
  let bestScore = -1;
  for (const g of globs) {
    if (g.score > bestScore && g.re.test(name)) {
      best = g.ms;
      bestScore = g.score;
    }
  }
  return best;
}

/**
 * Request timeout (ms) for calling tool `name` (the upstream's own tool name) on `entry`:
 * the entry's `toolTimeouts` first, then the global `toolTimeouts`, then `entry.timeoutMs`.
 * Any entry-level match wins over any global one, however specific.
 */
export function toolTimeoutFor(
  name: string,
  entry: { timeoutMs: number; toolTimeouts: Record<string, number> },
  global: Record<string, number>,
): number {
  return lookupToolTimeout(name, entry.toolTimeouts) ?? lookupToolTimeout(name, global) ?? entry.timeoutMs;
}
