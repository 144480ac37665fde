// src/main/config/: the user's MCP config file: created, read, watched, split between the bridge and the sessions.
/**
 * What the runtime needs from the user's MCP config file, without starting anything:
 * which entries the bridge runs (persistent, the default) and which are spawned per agent
 * session by the stdio proxy (`"persistent": false`), and a signature of everything the
 * bridge depends on, so a config change restarts the bridge only when that signature moved.
 *
 * Reading and validation are the proxy's: the bridge reads the same file (JSON with comments,
 * VS Code's `servers` as well as `mcpServers`), and a file it cannot use is reported here with
 * the proxy's own messages. A bad entry is not such a file: the bridge shows it as failed and
 * runs the others, so it is passed on like any entry.
 */
import { readFile } from 'node:fs/promises';
import {
  AGENT_OPTIONS,
  BRIDGE_OPTIONS,
  clientVarsFor,
  ConfigError,
  findServers,
  jsoncToJson,
  loadConfig,
  readConfig,
} from '../../proxy/index.js';

/** Entry fields that say how an aggregate lists a server's tools and cuts its results, passed on to the agent's aggregation. */
const PRESENTATION_FIELDS = ['expose', 'description', 'maxResultBytes'] as const;

/** The parts of the user's config the runtime uses. */
export interface UserConfigView {
  /** Raw entries run by the bridge, by id (disabled ones included: the bridge reports them). */
  bridgeEntries: Record<string, unknown>;
  /** Raw `"persistent": false` entries (not disabled), for the per-session stdio proxy. */
  sessionEntries: Record<string, unknown>;
  /**
   * Changes exactly when the bridge must be sent the file: its entries, and the top-level
   * options marked `bridge` in the proxy's topLevelOptions.ts.
   */
  bridgeSignature: string;
  /** What an agent's stdio aggregation of the bridge's servers takes from the file (acp.ts). */
  exposure: AggregateExposure;
}

/**
 * The tool exposure settings of the user's file, for the stdio aggregation an agent runs over
 * the bridge's servers (the app's chain): the top-level options marked `agents` in the proxy's
 * topLevelOptions.ts (`toolExposure`, `toolBudgetTokens`, `maxResultBytes`), and each bridge
 * entry's `expose`, `description` and `maxResultBytes`. Only what the file sets.
 */
export interface AggregateExposure {
  options: Record<string, unknown>;
  /** By server id. */
  servers: Record<string, Record<string, unknown>>;
}

/**
 * Reads and checks the user's config file.
 * `env` is what the bridge will expand `${VAR}`s from.
 * @throws ConfigError (from the proxy) for a missing, unparsable or invalid file.
 */
export async function readUserConfig(path: string, env: NodeJS.ProcessEnv = process.env): Promise<UserConfigView> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    // loadConfig words a missing or unreadable file the same way the bridge does.
    loadConfig(path);
    throw err;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(jsoncToJson(text.replace(/^\uFEFF/, '')));
  } catch {
    throw new ConfigError([`${path} is not valid JSON`]);
  }
  // Validate with the proxy's rules; `${VAR}`s are expanded only for checking here, the raw
  // entries are passed on unexpanded so each proxy expands them in its own environment.
  try {
    readConfig(raw, { env, vars: clientVarsFor(path) });
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(err.issues, path);
    throw err;
  }
  return viewOf(raw);
}

/** The {@link UserConfigView} of an already-parsed config object (not validated). */
export function viewOf(raw: unknown): UserConfigView {
  const top = isObject(raw) ? raw : {};
  const servers = findServers(top)?.servers ?? {};
  const bridgeEntries: Record<string, unknown> = {};
  const sessionEntries: Record<string, unknown> = {};
  for (const [id, entry] of Object.entries(servers)) {
    if (isObject(entry) && entry.persistent === false) {
      // The top-level sandbox default travels with each entry into the agent's proxy config.
      if (entry.disabled !== true)
        sessionEntries[id] =
          top.sandbox !== undefined && entry.sandbox === undefined ? { ...entry, sandbox: top.sandbox } : entry;
    } else {
      bridgeEntries[id] = entry;
    }
  }
  const options: Record<string, unknown> = {};
  for (const k of BRIDGE_OPTIONS) if (top[k] !== undefined) options[k] = top[k];
  const exposure: AggregateExposure = { options: {}, servers: {} };
  for (const k of AGENT_OPTIONS) if (top[k] !== undefined) exposure.options[k] = top[k];
  for (const [id, entry] of Object.entries(bridgeEntries)) {
    if (!isObject(entry)) continue;
    const shown = Object.fromEntries(
      PRESENTATION_FIELDS.filter((k) => entry[k] !== undefined).map((k) => [k, entry[k]]),
    );
    if (Object.keys(shown).length) exposure.servers[id] = shown;
  }
  return {
    bridgeEntries,
    sessionEntries,
    bridgeSignature: canonicalJson({ servers: bridgeEntries, options }),
    exposure,
  };
}

/** JSON with object keys sorted, so key order in the file does not count as a change. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
