/**
 * The tools one aggregate session found with `search_tools`: in `search` mode they join that
 * session's `tools/list` (and no other's), so a client that re-lists on `list_changed` can call
 * them by name. Bounded, the oldest dropped; it lives and ends with its session.
 */

/** How many found tools one session keeps listed: a few searches' worth, far below what deferring saves. */
export const MAX_FOUND_TOOLS = 64;

export class FoundTools {
  /** Exposed names, oldest first (a Map keeps insertion order). */
  private readonly names = new Map<string, true>();

  constructor(private readonly max = MAX_FOUND_TOOLS) {}

  get size(): number {
    return this.names.size;
  }

  /** Adds `names` (a name found again becomes the newest); the count of names that were not there. */
  add(names: readonly string[]): number {
    let fresh = 0;
    for (const name of names) {
      if (this.names.delete(name)) this.names.set(name, true);
      else {
        this.names.set(name, true);
        fresh++;
      }
    }
    for (const name of this.names.keys()) {
      if (this.names.size <= this.max) break;
      this.names.delete(name);
    }
    return fresh;
  }

  /** The names, oldest first. */
  list(): string[] {
    return [...this.names.keys()];
  }
}
