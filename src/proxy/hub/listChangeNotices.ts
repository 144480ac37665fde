/**
 * Which `notifications/<kind>/list_changed` one downstream session gets: changes are
 * coalesced into one notification per kind per tick, sent only when the session has
 * received that list before the change (a list it has not read yet is not stale).
 */
import type { ListKind } from '../upstream/listCache.js';

export class ListChangeNotices {
  private readonly pending = new Set<ListKind>();
  /** The hub's list version this session last received, per kind (absent: never listed). */
  private readonly seen = new Map<ListKind, number>();

  constructor(
    /** The hub's list versions (bumped in place on every change). */
    private readonly versions: Readonly<Record<ListKind, number>>,
    private readonly send: (method: string) => void,
  ) {}

  /** The session was just sent the current `kind` list. */
  listed(kind: ListKind): void {
    this.seen.set(kind, this.versions[kind]);
  }

  changed(kind: ListKind): void {
    this.pending.add(kind);
    if (this.pending.size > 1) return;
    setImmediate(() => {
      const kinds = [...this.pending];
      this.pending.clear();
      for (const k of kinds) {
        const seen = this.seen.get(k);
        if (seen === undefined || seen >= this.versions[k]) continue;
        this.seen.set(k, this.versions[k]);
        this.send(`notifications/${k}/list_changed`);
      }
    });
  }
}
