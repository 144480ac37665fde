/**
 * Where a sandboxed server's private HOME lives, kept across restarts: `sandbox/<id>/home` in
 * the runtime's data folder (`$QIMING_DATA_DIR`, else `<appData>/qiming-mcp-runtime/mcp`, as
 * pinning/pinFolder.ts), so the bridge and every stdio proxy of the user give a server the same
 * one. And which engine confines servers on this platform.
 */
import { join } from 'node:path';
import { appDataDir } from '../common/appDataDir.js';
import { RUNTIME_VAR_NAMES } from '../config/defaultConfig.js';
import type { SandboxEngine } from '../../shared/sandbox.js';

export function sandboxHome(id: string, env: NodeJS.ProcessEnv = process.env): string {
  const data = env[RUNTIME_VAR_NAMES.dataDir] || join(appDataDir(process.platform, env), 'qiming-mcp-runtime', 'mcp');
  return join(data, 'sandbox', id, 'home');
}

export function sandboxEngine(platform: NodeJS.Platform = process.platform): SandboxEngine {
  return platform === 'linux' ? 'bubblewrap' : platform === 'darwin' ? 'seatbelt' : 'unavailable';
}
