/**
 * Where the pins live: `$QIMING_PINS_DIR` when set; else `pins/` in the runtime's data folder,
 * `$QIMING_DATA_DIR` (the app sets it to `<userData>/mcp`, the headless bridge to the same place
 * in the dev tree's data folder, and an agent's stdio proxy inherits it from the app); else
 * `<appData>/qiming-mcp-runtime/mcp/pins` (a stdio aggregation started by another client), the
 * folder the headless bridge uses too. One folder per user: the bridge and every stdio proxy of
 * that user read and write the same pins.
 */
import { join } from 'node:path';
import { appDataDir } from '../common/appDataDir.js';
import { RUNTIME_VAR_NAMES } from '../config/defaultConfig.js';
import type { PinningMode } from '../../shared/status.js';

export const PINS_DIR_ENV = 'QIMING_PINS_DIR';
/** The pinning of a config that sets none (`off`, `warn` or `block`; unset or empty: `block`). */
export const PINNING_ENV = 'QIMING_PINNING';

export function pinFolder(env: NodeJS.ProcessEnv = process.env): string {
  if (env[PINS_DIR_ENV]) return env[PINS_DIR_ENV];
  const data = env[RUNTIME_VAR_NAMES.dataDir];
  return join(data || join(appDataDir(process.platform, env), 'qiming-mcp-runtime', 'mcp'), 'pins');
}

/** `$QIMING_PINNING` when it is a pinning; `block` when unset; a usage error names a wrong one. */
export function pinDefault(env: NodeJS.ProcessEnv = process.env): PinningMode {
  const v = env[PINNING_ENV];
  if (!v) return 'block';
  if (v === 'off' || v === 'warn' || v === 'block') return v;
  throw new Error(`${PINNING_ENV} must be one of "off", "warn", "block" (it is ${JSON.stringify(v.slice(0, 40))})`);
}
