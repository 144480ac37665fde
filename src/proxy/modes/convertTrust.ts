/**
 * What of the trust settings a config gives the one entry `convert --config` runs: its
 * approval policy (the top level's settings with only that entry's rule) and its pinning, as
 * the stdio aggregation and the bridge apply them. In force unless both say `off`; then, and
 * for a `--url`, convert is the plain pipe (docs/decisions/0023-convert-is-a-pipe.md).
 */
import type { ProxyConfig, ServerEntry } from '../config/config.js';
import type { ApprovalSettings } from '../config/approvalConfig.js';
import type { PinningMode } from '../../shared/status.js';
import { pinningOf } from '../pinning/pinBook.js';
import { pinDefault } from '../pinning/pinFolder.js';

export interface ConvertTrust {
  /** Unset: annotations decide (the default policy). */
  approval?: ApprovalSettings;
  pinning: PinningMode;
}

/** `entry`'s trust settings in `config`; undefined when neither applies (both `off`). */
export function convertTrust(config: ProxyConfig, entry: ServerEntry): ConvertTrust | undefined {
  const a = config.approval;
  const rule = a?.servers[entry.id];
  // A `bridge` entry's calls are decided by the bridge it reaches, as in the stdio aggregation.
  const approvalOff = a?.top === 'off' || rule === 'off' || (entry.kind === 'remote' && entry.type === 'bridge');
  const pinning = pinningOf(entry, config, pinDefault());
  if (approvalOff && pinning === 'off') return undefined;
  const approval: ApprovalSettings | undefined = approvalOff
    ? { top: 'off', servers: {}, hints: a?.hints ?? 'destructive', askTimeoutMs: a?.askTimeoutMs ?? 0 }
    : a && { ...a, servers: rule === undefined ? {} : { [entry.id]: rule } };
  return { ...(approval ? { approval } : {}), pinning };
}
