/**
 * The hub's side of tool pinning, in the core file: the mode of each server, its tool gate (the
 * check itself, pinGate.ts, loaded on the first list it checks), and what withholds a tool.
 * `off` never loads the check: its list passes as it came.
 */
import type { Logger } from '../common/logger.js';
import type { ProxyConfig, ServerEntry } from '../config/config.js';
import type { PinningMode, PinningStatus, ToolDrift } from '../../shared/status.js';
import type { PinDecisionResult, PinGate } from './pinGate.js';

type Item = Record<string, unknown>;
type GateModule = typeof import('./pinGate.js');

export interface PinHost {
  readonly config: ProxyConfig;
  readonly logger: Logger;
}

/**
 * An entry's pinning: its own `pinning`, else the top level's, else `block`. A `bridge` entry (an agent's
 * stdio proxy reaching the bridge) is pinned by the bridge, so only its own setting pins it again here.
 */
export function pinningOf(entry: ServerEntry, config: ProxyConfig, fallback: PinningMode = 'block'): PinningMode {
  if (entry.pinning) return entry.pinning;
  if (entry.kind === 'remote' && entry.type === 'bridge') return 'off';
  return config.pinning ?? fallback;
}

export class PinBook {
  private readonly gates = new Map<string, PinGate>();
  private readonly entries = new Map<string, ServerEntry>();
  private module?: Promise<GateModule>;

  constructor(
    /** The folder of the pin files (pinFolder.ts). */
    readonly dir: string,
    private readonly host: PinHost,
    /** The pinning of a config that sets none (`$QIMING_PINNING`, pinFolder.ts `pinDefault`). */
    private readonly fallback: PinningMode = 'block',
  ) {}

  /** The gate a server's tool list passes through (upstream/listCache.ts `toolGate`). */
  gate(entry: ServerEntry): (tools: Item[]) => Item[] | Promise<Item[]> {
    this.entries.set(entry.id, entry);
    this.gates.delete(entry.id);
    return (tools) => {
      if (this.modeOf(entry.id) === 'off') {
        this.gates.delete(entry.id);
        return tools;
      }
      return this.load().then((m) => this.gateOf(entry, m).apply(tools));
    };
  }

  /** A server taken out of the config. */
  drop(id: string): void {
    this.entries.delete(id);
    this.gates.delete(id);
  }

  modeOf(id: string): PinningMode {
    const e = this.entries.get(id);
    return e ? pinningOf(e, this.host.config, this.fallback) : 'off';
  }

  /** What withholds tool `name` (as its server names it) of server `id`. */
  withheld(id: string, name: string): ToolDrift | undefined {
    return this.gates.get(id)?.withheld(name);
  }

  withheldNames(id: string): string[] {
    return this.gates.get(id)?.withheldNames() ?? [];
  }

  /** The status part of server `id`; none under `off`. */
  status(id: string): PinningStatus | undefined {
    if (this.modeOf(id) === 'off') return undefined;
    return this.gates.get(id)?.status() ?? { mode: this.modeOf(id), drifts: [] };
  }

  decide(id: string, tool: string, decision: 'accept' | 'reject', hash: string): PinDecisionResult {
    const g = this.gates.get(id);
    if (!g) return { ok: false, status: 404, error: `server "${id}" has no change to ${decision}` };
    return g.decide(tool, decision, hash);
  }

  private load(): Promise<GateModule> {
    return (this.module ??= import('./pinGate.js'));
  }

  /** The gate of the entry now configured under `entry`'s id (a reload may have replaced `entry`). */
  private gateOf(entry: ServerEntry, m: GateModule): PinGate {
    const id = entry.id;
    const current = this.entries.get(id) ?? entry;
    let g = this.gates.get(id);
    if (!g || g.entry !== current) {
      g = new m.PinGate(current, this.dir, () => this.modeOf(id), this.host.logger.child(id));
      this.gates.set(id, g);
    }
    return g;
  }
}
