/** Environment variables the proxy reads, named once (a leaf module: cheap to import). */

/** The bridge's bearer token, for the bridge itself and for proxies that connect to it. */
export const TOKEN_ENV = 'MCP_BRIDGE_TOKEN';
/** Set for the proxy when it runs inside Electron's binary; never passed on to servers. */
export const RUN_AS_NODE_ENV = 'ELECTRON_RUN_AS_NODE';
/** The folder of the registries of started server groups (default `<tmpdir>/qiming-mcp-<uid>`). */
export const RUNTIME_DIR_ENV = 'QIMING_MCP_RUNTIME_DIR';
/** The app's key of the encrypted token store (oauth/keyCodec.ts); never passed on to servers. */
export const OAUTH_KEY_ENV = 'QIMING_OAUTH_KEY';
/**
 * Prefix of the variables that carry configured secrets from the app to the proxy: the app
 * moves secret values of its entries out of argv into `QIMING_SECRET_<n>` (src/main/config/
 * secretsToEnv.ts) and the config names them as `${QIMING_SECRET_<n>}`.
 */
export const SECRET_VAR_PREFIX = 'QIMING_SECRET_';
/**
 * The key of the agent session an agent's stdio proxy serves, set by the app in that session's
 * entry: the proxy names it in its tool calls to the bridge (hub/approval/callerMeta.ts), and an
 * allow given in that session's own permission prompt answers only a call that carries it.
 */
export const CALLER_KEY_ENV = 'QIMING_CALLER_KEY';
/** The runtime's own secrets, by name: no process the runtime starts for itself (the browser opener) inherits them. */
export const RUNTIME_SECRET_ENVS: readonly string[] = [TOKEN_ENV, OAUTH_KEY_ENV, CALLER_KEY_ENV];

/** True for a variable holding one of the runtime's secrets (Windows names match in any case). */
export function isRuntimeSecret(name: string, platform: NodeJS.Platform = process.platform): boolean {
  const n = platform === 'win32' ? name.toUpperCase() : name;
  return RUNTIME_SECRET_ENVS.includes(n) || n.startsWith(SECRET_VAR_PREFIX);
}
/** Set to `app` by the app for its bridge: secrets come from the app's store (secrets/appSecretStore.ts), never a keychain of the bridge's own. */
export const SECRET_STORE_ENV = 'QIMING_SECRET_STORE';
/** The folder of the sign-in token store (oauth/oauthStore.ts). */
export const OAUTH_DIR_ENV = 'QIMING_OAUTH_DIR';
/**
 * Folders of the user's login-shell PATH, handed down by whoever already read them (the app,
 * or a proxy): a proxy that finds it set adds these folders and never runs the shell itself.
 * Set and empty: nothing to add and nothing to read (how to turn the login-shell read off).
 */
export const LOGIN_PATH_ENV = 'QIMING_LOGIN_PATH';
/** The login-shell read's deadline in ms (default 5000). */
export const LOGIN_SHELL_TIMEOUT_ENV = 'QIMING_LOGIN_SHELL_TIMEOUT_MS';
/** Set to 1 in the login shell we run, so an rc file can skip slow work (`[ -n "$QIMING_RESOLVING_ENVIRONMENT" ] && return`). */
export const RESOLVING_ENV_ENV = 'QIMING_RESOLVING_ENVIRONMENT';
