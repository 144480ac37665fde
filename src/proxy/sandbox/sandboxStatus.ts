/** `servers[].sandbox` of the status: a stdio entry's policy, the engine and its private HOME (`~` shortened). */
import { homedir } from 'node:os';
import type { ServerEntry } from '../config/configTypes.js';
import type { ServerStatus } from '../../shared/status.js';
import { sandboxEngine, sandboxHome } from './sandboxHome.js';

/** `status` with the entry's sandbox added, when it has one. */
export function withSandbox(status: ServerStatus, entry: ServerEntry): ServerStatus {
  if (entry.kind !== 'stdio' || !entry.sandbox) return status;
  const home = homedir();
  const short = (p: string) => (p === home || p.startsWith(`${home}/`) ? `~${p.slice(home.length)}` : p);
  const s = entry.sandbox;
  return {
    ...status,
    sandbox: {
      engine: sandboxEngine(),
      home: short(sandboxHome(entry.id)),
      read: [...s.read],
      write: [...s.write],
      network: typeof s.network === 'string' ? s.network : { allow: [...s.network.allow] },
    },
  };
}
