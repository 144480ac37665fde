/** Environment variables the proxy reads, named once (a leaf module: cheap to import). */

/** The bridge's bearer token, for the bridge itself and for proxies that connect to it. */
export const TOKEN_ENV = 'MCP_BRIDGE_TOKEN';
/** Set for the proxy when it runs inside Electron's binary; never passed on to servers. */
export const RUN_AS_NODE_ENV = 'ELECTRON_RUN_AS_NODE';
/** The folder of the registries of started server groups (default `<tmpdir>/qiming-mcp-<uid>`). */
export const RUNTIME_DIR_ENV = 'QIMING_MCP_RUNTIME_DIR';
/** The app's key of the encrypted token store (oauth/keyCodec.ts); never passed on to servers. */
export const OAUTH_KEY_ENV = 'QIMING_OAUTH_KEY';
/** The folder of the sign-in token store (oauth/oauthStore.ts). */
export const OAUTH_DIR_ENV = 'QIMING_OAUTH_DIR';
