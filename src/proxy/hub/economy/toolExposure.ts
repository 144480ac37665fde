/**
 * Which list an aggregate session's `tools/list` gives (`toolExposure`): `all`, every tool of
 * every server as before; `search`, the meta-tools, the `"expose": "always"` servers' tools and
 * the tools the session found (metaTools.ts builds that list, in a lazily loaded file); `auto`,
 * `all` while the estimated tokens of the merged list stay within `toolBudgetTokens`, else
 * `search`. The weight is computed once per state of the hub's lists (`listsEpoch`), never per
 * call, and not at all under a configured `all` or `search`. A single-server scope is never
 * touched.
 */
import type { ProxyConfig } from '../../config/configTypes.js';
import type { Item } from '../../upstream/listCache.js';
import { estimateTokens } from './tokenEstimate.js';

/** What an aggregate lists: every tool, or the meta-tools and the tools kept listed. */
export type ExposureMode = 'all' | 'search';

/** What the exposure reads of the hub. */
export interface ExposureSource {
  readonly config: Pick<ProxyConfig, 'toolExposure' | 'toolBudgetTokens'>;
  /** Bumped whenever what a list shows may have changed: a server's list, its state, the config. */
  readonly listsEpoch: number;
  /** The merged tool list of the aggregate scope, as `tools/list` gives it in `all` mode. */
  list(kind: 'tools', scope: Record<string, never>): Item[];
  /** Ids of the servers ready now (whose tools the merged list holds). */
  readyIds(): string[];
}

/** The merged list's weight at one epoch. */
export interface ToolWeight {
  readonly epoch: number;
  /** Estimated tokens of the merged tool list (tokenEstimate.ts). */
  readonly tokens: number;
  readonly tools: number;
  /** The mode `auto` gives at this weight. */
  readonly auto: ExposureMode;
  readonly ready: ReadonlySet<string>;
}

export class ToolExposure {
  private weight?: ToolWeight;

  constructor(private readonly hub: ExposureSource) {}

  /** The mode in force for aggregate sessions now. */
  mode(): ExposureMode {
    const set = this.hub.config.toolExposure;
    return set === 'auto' ? this.weigh().auto : set;
  }

  /** The merged list's weight (computed at most once per epoch). */
  weigh(): ToolWeight {
    if (this.weight?.epoch === this.hub.listsEpoch) return this.weight;
    const list = this.hub.list('tools', {});
    const tokens = estimateTokens(list);
    this.weight = {
      epoch: this.hub.listsEpoch,
      tokens,
      tools: list.length,
      auto: tokens > this.hub.config.toolBudgetTokens ? 'search' : 'all',
      ready: new Set(this.hub.readyIds()),
    };
    return this.weight;
  }

  /**
   * Whether the mode `auto` gives flipped now that server `id` is no longer ready: its tools left
   * the list without a `list_changed` of their own. Nothing to do before any list was weighed.
   */
  flippedWithout(id: string): boolean {
    const before = this.weight;
    if (this.hub.config.toolExposure !== 'auto' || !before?.ready.has(id)) return false;
    return this.weigh().auto !== before.auto;
  }
}
