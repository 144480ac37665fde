// src/index/: the package's public entries (package.json "exports"); nothing else is public.
/**
 * `qiming-mcp-runtime/cli`: where the bundled proxy CLI (and the bundled default servers)
 * are, in a dev tree and in a packaged app, and what an app's electron-builder config must
 * unpack so that other processes can run them.
 * @packageDocumentation
 */
import { dirname, join, sep } from 'node:path';
import { resolveProxyCliPath, type CliPathOptions } from '../main/runtime/cliPath.js';
import { SERVER_FILES, type RuntimePaths } from '../main/runtime/resourcePaths.js';

export {
  PROXY_CLI_FILE,
  resolveProxyCliPath,
  proxyCliCandidates,
  unpackedPath,
  nodeCommand,
  isElectron,
  type CliPathOptions,
  type NodeCommand,
} from '../main/runtime/cliPath.js';
export {
  resolveRuntimePaths,
  SERVER_FILES,
  type RuntimePaths,
  type RuntimePathsInput,
} from '../main/runtime/resourcePaths.js';

/** This package's name, as it appears under `node_modules`. */
export const PACKAGE_NAME = 'qiming-mcp-runtime';

/**
 * electron-builder `asarUnpack` globs for an app that depends on this package: the CLI and
 * the default servers are run by other processes (`<app> ` + `ELECTRON_RUN_AS_NODE=1`),
 * which cannot read inside `app.asar`.
 */
export const ASAR_UNPACK: readonly string[] = [
  `node_modules/${PACKAGE_NAME}/dist/proxy/**`,
  `node_modules/${PACKAGE_NAME}/dist/servers/**`,
];

/**
 * The absolute path of the bundled proxy CLI (mapped out of `app.asar` in a packaged app).
 * @throws Error naming every place looked at when it is missing.
 */
export function proxyCliPath(options?: CliPathOptions): string {
  return resolveProxyCliPath(options);
}

/**
 * This package's runtime files where it is installed: the CLI and the servers outside the
 * archive, the panel wherever it is (Electron reads `app.asar`).
 */
export function packagePaths(options?: CliPathOptions): RuntimePaths {
  const cliPath = resolveProxyCliPath(options);
  const dist = dirname(dirname(cliPath));
  const serversDir = join(dist, 'servers');
  return {
    cliPath,
    rendererDir: join(dist, 'renderer').replace(`${sep}app.asar.unpacked${sep}`, `${sep}app.asar${sep}`),
    serversDir,
    defaultServers: {
      memory: join(serversDir, SERVER_FILES.memory),
      filesystem: join(serversDir, SERVER_FILES.filesystem),
    },
  };
}
