/**
 * Which `notifications/<kind>/list_changed` one downstream session gets: changes are
 * coalesced into one notification per kind per tick, sent only when the session has
 * received that list before the change (a list it has not read yet is not stale). A change
 * of the hub's merged list counts for every session; a change of this session's own list
 * (tools it found by search: economy/foundTools.ts) only for it.
 */
import type { ListKind } from '../upstream/listCache.js';

export class ListChangeNotices {
  private readonly pending = new Set<ListKind>();
  /** The hub's list version this session last received, per kind (absent: never listed). */
  private readonly seen = new Map<ListKind, number>();
  /** Changes of this session's own lists, counted beside the hub's versions. */
  private readonly own: Record<ListKind, number> = { tools: 0, prompts: 0, resources: 0 };

  constructor(
    /** The hub's list versions (bumped in place on every change). */
    private readonly versions: Readonly<Record<ListKind, number>>,
    private readonly send: (method: string) => void,
  ) {}

  /** The session was just sent the current `kind` list. */
  listed(kind: ListKind): void {
    this.seen.set(kind, this.version(kind));
  }

  /** This session's own `kind` list changed (not the hub's). */
  changedHere(kind: ListKind): void {
    this.own[kind]++;
    this.changed(kind);
  }

  changed(kind: ListKind): void {
    this.pending.add(kind);
    if (this.pending.size > 1) return;
    setImmediate(() => {
      const kinds = [...this.pending];
      this.pending.clear();
      for (const k of kinds) {
        const seen = this.seen.get(k);
        if (seen === undefined || seen >= this.version(k)) continue;
        this.seen.set(k, this.version(k));
        this.send(`notifications/${k}/list_changed`);
      }
    });
  }

  private version(kind: ListKind): number {
    return this.versions[kind] + this.own[kind];
  }
}
