/**
 * Where the app's own files are, in the dev tree and in an installed app, computed from what
 * Electron reports (`app.isPackaged`, `process.resourcesPath`, `app.getAppPath()`), with no
 * file system access, so both layouts are testable anywhere.
 *
 * The layouts (see electron-builder.yml):
 *
 *     dev tree (`electron .`)          <repo>/dist/{proxy,servers,renderer}/...
 *     installed, asar (the default)    <resources>/app.asar/dist/renderer/...
 *                                      <resources>/app.asar.unpacked/dist/{proxy,servers}/...
 *     installed, `asar: false`         <resources>/app/dist/{proxy,servers,renderer}/...
 *
 * The proxy CLI and the bundled servers are run by other processes (`<app executable>` +
 * ELECTRON_RUN_AS_NODE=1, plain Node semantics), which cannot read inside app.asar, so they
 * are unpacked; the status panel is loaded by Electron itself, which reads the archive.
 */
import nodePath from 'node:path';
import { PROXY_CLI_FILE } from './cliPath.js';
import { SERVER_FILES } from '../../proxy/index.js';

/** The bundled default servers' file names under `dist/servers` (see scripts/buildServers.mjs). */
export { SERVER_FILES };

/** What Electron reports about where the app runs from. */
export interface RuntimePathsInput {
  /** `app.isPackaged`. */
  isPackaged: boolean;
  /** `process.resourcesPath` (only used when packaged). */
  resourcesPath: string;
  /** `app.getAppPath()`: the repo root in dev, `<resources>/app.asar` when packaged. */
  appPath: string;
}

/** Absolute paths of the app's runtime files. */
export interface RuntimePaths {
  /** The proxy CLI, outside the archive: run it as `<node command> <cliPath> ...`. */
  cliPath: string;
  /** The status panel's folder (index.html, panel.js, panel.css); may be inside app.asar. */
  rendererDir: string;
  /** Folder of the bundled servers, outside the archive. */
  serversDir: string;
  /** The bundled default servers' entry files, outside the archive. */
  defaultServers: { memory: string; filesystem: string };
}

/**
 * Computes {@link RuntimePaths} for the dev tree or the packaged layout.
 * @param path Path flavour to join with (default: this platform's; `path.win32` in tests).
 */
export function resolveRuntimePaths(input: RuntimePathsInput, path: nodePath.PlatformPath = nodePath): RuntimePaths {
  const appRoot = path.resolve(input.appPath);
  const runRoot = input.isPackaged ? unpackedRoot(appRoot, input.resourcesPath, path) : appRoot;
  const serversDir = path.join(runRoot, 'dist', 'servers');
  return {
    cliPath: path.join(runRoot, 'dist', 'proxy', PROXY_CLI_FILE),
    rendererDir: path.join(appRoot, 'dist', 'renderer'),
    serversDir,
    defaultServers: {
      memory: path.join(serversDir, SERVER_FILES.memory),
      filesystem: path.join(serversDir, SERVER_FILES.filesystem),
    },
  };
}

/**
 * Where the unpacked files of a packaged app are: electron-builder writes the `asarUnpack`
 * files to `<archive>.unpacked` beside the archive in the resources folder; without an
 * archive everything is in the app folder itself.
 */
function unpackedRoot(appRoot: string, resourcesPath: string, path: nodePath.PlatformPath): string {
  const name = path.basename(appRoot);
  if (!name.toLowerCase().endsWith('.asar')) return appRoot;
  return path.join(path.resolve(resourcesPath || path.dirname(appRoot)), `${name}.unpacked`);
}
