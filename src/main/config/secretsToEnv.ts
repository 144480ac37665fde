/**
 * Moves the secret-bearing values of raw server entries (env values, header values,
 * `authToken`) out of a config that will travel in argv, which every local user can read
 * (`ps`), into environment variables, which only the owner can read. Each value is replaced
 * by `${QIMING_SECRET_<n>}`, a variable the proxy expands when it loads its config.
 *
 * Values that already contain `$` are left as they are: they are `${VAR}` references the
 * user wrote, and moving them would stop their expansion.
 */
import { SECRET_VAR_PREFIX } from '../../proxy/index.js';

export { SECRET_VAR_PREFIX };

export interface Externalized {
  servers: Record<string, unknown>;
  env: Record<string, string>;
}

export function secretsToEnv(servers: Readonly<Record<string, unknown>>, start = 1): Externalized {
  const env: Record<string, string> = {};
  let n = start;
  const hide = (value: unknown): unknown => {
    if (typeof value !== 'string' || value.includes('$') || value === '') return value;
    const name = `${SECRET_VAR_PREFIX}${n++}`;
    env[name] = value;
    return `\${${name}}`;
  };
  const hideAll = (map: unknown): unknown =>
    map && typeof map === 'object' && !Array.isArray(map)
      ? Object.fromEntries(Object.entries(map as Record<string, unknown>).map(([k, v]) => [k, hide(v)]))
      : map;
  const out: Record<string, unknown> = {};
  for (const [id, raw] of Object.entries(servers)) {
    if (!raw || typeof raw !== 'object') {
      out[id] = raw;
      continue;
    }
    const entry = { ...(raw as Record<string, unknown>) };
    if ('env' in entry) entry.env = hideAll(entry.env);
    if ('headers' in entry) entry.headers = hideAll(entry.headers);
    if ('authToken' in entry) entry.authToken = hide(entry.authToken);
    out[id] = entry;
  }
  return { servers: out, env };
}
