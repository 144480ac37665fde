/**
 * The fetch step of a sandboxed `npx <package>` whose package is in no npx cache yet (Linux):
 * `npx --yes --package <spec> -- true` run under bubblewrap in the server's own sandbox (its
 * private HOME, where npm's cache `~/.npm` is, the only place it writes), with the network
 * allowed to one host: the registry the user's npm config names (`npm config get registry`,
 * run beside the server's npx with the server's environment and cwd), reached through the
 * filtering proxy (filterProxy.ts). The server then runs from that copy with its own network
 * (installPaths.ts). Nothing of the user's npm config but the registry reaches the step (its
 * tokens stay out of a package's install scripts). Bounded: the step's time and the output
 * kept; npm gives up after one retry; the step's processes end with the runtime's. A failure is
 * an {@link NpxFetchError} with npm's reason.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from '../common/logger.js';
import { bwrapArgs, PROXY_PORT, proxyEnv, type BwrapInput } from './bwrapArgs.js';
import { startFilterProxy } from './filterProxy.js';
import { parseHostPattern } from './hostPattern.js';
import type { Mount } from './installPaths.js';
import { killTreeOnExit } from '../process/processTree.js';

/** The whole step, at most; then it is killed. */
export const NPX_FETCH_TIMEOUT_MS = 180_000;
const CONFIG_TIMEOUT_MS = 15_000;
/** Output kept of the step (its end), for the reason of a failure. */
const MAX_OUTPUT_CHARS = 16 * 1024;
const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';

/** npx could not fetch the package; the message says why, with npm's own words. */
export class NpxFetchError extends Error {
  override readonly name = 'NpxFetchError';
}

export interface NpxFetchRequest {
  /** What npx is asked for (`pkg@1.2.3`, one per `--package`). */
  specs: readonly string[];
  /** The npx the server would run (absolute). */
  npx: string;
  /** The server's environment (the user's HOME), and its cwd. */
  env: Record<string, string>;
  cwd?: string;
  bwrap: string;
  socat: string;
  /** The npx installation's mounts (installPaths.ts). */
  install: readonly Mount[];
  /** The server's sandbox, as bwrapArgs.ts takes it (the step gets no paths of the user's). */
  box: Pick<BwrapInput, 'home' | 'privateHome' | 'realOf' | 'systemEntry'>;
  log: Logger;
}

/** The registry the user's npm config names for the server (its environment and cwd), as an URL. */
export function npmRegistry(npx: string, env: Record<string, string>, cwd?: string): Promise<URL> {
  const npm = join(dirname(npx), 'npm');
  return new Promise((resolve) => {
    const fallback = () => resolve(new URL(env.npm_config_registry || DEFAULT_REGISTRY));
    if (!existsSync(npm)) return fallback();
    execFile(
      npm,
      ['config', 'get', 'registry', '--logs-max=0'],
      { env, cwd, timeout: CONFIG_TIMEOUT_MS, maxBuffer: 64 * 1024 },
      (err, out) => {
        const text = String(out).trim();
        try {
          const url = new URL(text);
          if (!err && (url.protocol === 'https:' || url.protocol === 'http:')) return resolve(url);
        } catch {
          // not an URL: the fallback
        }
        fallback();
      },
    );
  });
}

/** npm's reason in the step's output: its first `npm error` lines, else its last line. */
export function npmReason(output: string, code: number | null, signal: string | null): string {
  const lines = output.split('\n').map((l) => l.trim());
  const errors = lines
    .filter((l) => /^npm (error|ERR!)/.test(l))
    .filter((l) => !/complete log of this run|A complete log|^npm (error|ERR!)\s*$/.test(l))
    .slice(0, 4);
  if (errors.length > 0) return errors.join(' / ').slice(0, 1000);
  const last = lines.filter(Boolean).pop();
  if (last) return last.slice(0, 500);
  return signal ? `npx ended by ${signal}` : `npx exited with code ${code}`;
}

/** Fetches `specs` into the server's private npm cache; see the file comment. */
export async function npxFetch(r: NpxFetchRequest): Promise<void> {
  const registry = await npmRegistry(r.npx, r.env, r.cwd);
  const port = registry.port || (registry.protocol === 'https:' ? '443' : '80');
  const host = registry.hostname.replace(/^\[(.*)\]$/, '$1');
  const what = r.specs.join(', ');
  const rule = parseHostPattern(`${host}:${port}`);
  if ('error' in rule) throw new NpxFetchError(`npx could not fetch ${what}: its registry's host ${rule.error}`);
  // The host only: a registry URL may carry credentials.
  r.log.info(
    `sandbox: npx fetches ${what} inside the sandbox from the registry at ${host}:${port}, the one host it reaches; it writes only its private npm cache`,
  );
  const socketDir = mkdtempSync(join(tmpdir(), 'qiming-npx-'));
  const proxy = await startFilterProxy([rule], r.log, join(socketDir, 'proxy.sock'));
  try {
    const args = bwrapArgs({
      ...r.box,
      policy: { read: [], write: [], network: { allow: [`${host}:${port}`] } },
      command: r.npx,
      args: ['--yes', ...r.specs.flatMap((s) => ['--package', s]), '--', 'true'],
      install: r.install,
      proxySocket: proxy.where,
      socat: r.socat,
    });
    const proxyUrl = `http://127.0.0.1:${PROXY_PORT}`;
    const env: Record<string, string> = {
      ...r.env,
      ...proxyEnv(proxyUrl),
      HOME: r.box.home,
      TMPDIR: '/tmp',
      NO_PROXY: '',
      no_proxy: '',
      npm_config_registry: registry.href,
      npm_config_proxy: proxyUrl,
      npm_config_https_proxy: proxyUrl,
      npm_config_noproxy: '',
      npm_config_cache: join(r.box.home, '.npm'),
      npm_config_userconfig: '/dev/null',
      npm_config_yes: 'true',
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_fetch_retries: '1',
      npm_config_fetch_retry_mintimeout: '1000',
      npm_config_fetch_retry_maxtimeout: '5000',
    };
    const { code, signal, output } = await run(r.bwrap, args, env);
    if (code !== 0)
      throw new NpxFetchError(`npx could not fetch ${what} inside the sandbox: ${npmReason(output, code, signal)}`);
  } finally {
    await proxy.close();
    rmSync(socketDir, { recursive: true, force: true });
  }
}

function run(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; signal: string | null; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    let timedOut = false;
    const keep = (d: Buffer) => {
      output = (output + d.toString('utf8')).slice(-MAX_OUTPUT_CHARS);
    };
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    // Ended with the runtime, should it exit while the step runs.
    const unregister = child.pid !== undefined ? killTreeOnExit(child.pid) : () => undefined;
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, NPX_FETCH_TIMEOUT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      unregister();
      resolve({ code: -1, signal: null, output: e.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      unregister();
      resolve({
        code,
        signal,
        output: timedOut ? `${output}\nnpm error it took longer than ${NPX_FETCH_TIMEOUT_MS / 1000} s` : output,
      });
    });
  });
}
