/**
 * Which MCP Registry the Browse view reads: `QIMING_REGISTRY_URL` when set, else the config
 * file's top-level `registryUrl`, else the official registry. Only http(s) URLs are taken.
 */
import { InstallError } from './installError.js';

export const DEFAULT_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';
export const REGISTRY_URL_ENV = 'QIMING_REGISTRY_URL';

/** The base URL without a trailing slash. @throws InstallError for a value that is not an http(s) URL. */
export function registryBaseUrl(env: NodeJS.ProcessEnv, setting: unknown): string {
  const fromEnv = env[REGISTRY_URL_ENV];
  const raw =
    fromEnv !== undefined && fromEnv.trim() !== ''
      ? fromEnv.trim()
      : typeof setting === 'string' && setting.trim() !== ''
        ? setting.trim()
        : DEFAULT_REGISTRY_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InstallError(`the registry URL "${raw}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InstallError(`the registry URL must be http(s), not ${url.protocol}`);
  return url.href.replace(/\/+$/, '');
}
