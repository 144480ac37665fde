/**
 * Where the bundled proxy CLI lives and how to run a Node script from the main process.
 *
 * Inside Electron there is no `node` binary to rely on: the app runs its own executable with
 * `ELECTRON_RUN_AS_NODE=1` (which needs the `runAsNode` fuse left on). `utilityProcess` is no
 * option because it cannot pipe stdin, which the bridge and the ACP agents' proxies watch for
 * EOF. This is the one file that decides it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** File name of the bundled proxy CLI (see scripts/build.mjs). */
export const PROXY_CLI_FILE = 'qiming-mcp-stdio-proxy.cjs';

/** How to start a Node script: the command and the variables its environment needs. */
export interface NodeCommand {
  /** Absolute path of the executable: the Electron binary or node. */
  command: string;
  /** `{ ELECTRON_RUN_AS_NODE: '1' }` when `command` is the Electron binary, else empty. */
  env: Record<string, string>;
  /** Whether `command` is the Electron binary. */
  electron: boolean;
}

/** Whether this process is Electron (main or run-as-node). */
export function isElectron(versions: NodeJS.ProcessVersions = process.versions): boolean {
  return typeof (versions as { electron?: string }).electron === 'string';
}

/** The executable that runs Node scripts for this process (see the file comment). */
export function nodeCommand(opts: { execPath?: string; versions?: NodeJS.ProcessVersions } = {}): NodeCommand {
  const electron = isElectron(opts.versions);
  return {
    command: opts.execPath ?? process.execPath,
    env: electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
    electron,
  };
}

/** This module's folder, in the ESM sources (tests) and in the CJS bundle (dist/main). */
function hereDir(): string {
  if (typeof __dirname === 'string') return __dirname;
  return dirname(fileURLToPath(import.meta.url));
}

/**
 * Packaged apps keep the CLI outside the asar archive (another process runs it), so a path
 * inside `app.asar` is mapped to `app.asar.unpacked`.
 */
export function unpackedPath(p: string): string {
  return p.replace(`${sep}app.asar${sep}`, `${sep}app.asar.unpacked${sep}`);
}

export interface CliPathOptions {
  /** Folders to look in first (e.g. a path given by the app). */
  extraDirs?: string[];
  /** Electron's `process.resourcesPath` in packaged apps (extraResources layout). */
  resourcesPath?: string;
  /** Where this module lives; default: its real folder. */
  hereDir?: string;
}

/** Every place the CLI may be, in order: app-given, packaged (unpacked asar, extraResources), dev tree. */
export function proxyCliCandidates(opts: CliPathOptions = {}): string[] {
  const here = opts.hereDir ?? hereDir();
  const resources = opts.resourcesPath ?? (process as { resourcesPath?: string }).resourcesPath;
  const dirs = [
    ...(opts.extraDirs ?? []),
    // dist/main/main.cjs -> dist/proxy (dev and packaged, mapped out of the asar)
    join(here, '..', 'proxy'),
    ...(resources
      ? [
          join(resources, 'app.asar.unpacked', 'dist', 'proxy'),
          // an app that installed this package and bundled it into its own main file
          join(resources, 'app.asar.unpacked', 'node_modules', 'qiming-mcp-runtime', 'dist', 'proxy'),
          join(resources, 'proxy'),
        ]
      : []),
    // src/main/runtime/*.ts run by tests -> <repo>/dist/proxy
    join(here, '..', '..', '..', 'dist', 'proxy'),
    // an app that bundled this package into its own main file: the package as Node finds it from there
    ...installedPackageProxyDir(here),
  ];
  return [...new Set(dirs.map((d) => unpackedPath(resolve(d, PROXY_CLI_FILE))))];
}

/** `<package>/dist/proxy` of the `qiming-mcp-runtime` that `require` finds from `from`, if any. */
function installedPackageProxyDir(from: string): string[] {
  try {
    return [
      join(dirname(createRequire(join(from, 'index.js')).resolve('qiming-mcp-runtime/package.json')), 'dist', 'proxy'),
    ];
  } catch {
    return [];
  }
}

/**
 * The absolute path of the bundled proxy CLI.
 * @throws Error naming every place looked at when none has the file (run `npm run build`).
 */
export function resolveProxyCliPath(opts: CliPathOptions = {}): string {
  const candidates = proxyCliCandidates(opts);
  const found = candidates.find((p) => existsSync(p));
  if (!found)
    throw new Error(
      `proxy CLI ${PROXY_CLI_FILE} not found (build it with npm run build); looked in:\n  ${candidates.join('\n  ')}`,
    );
  return found;
}
