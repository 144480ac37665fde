/**
 * The most recent lines per tag (a server id, or `''` for untagged lines), for the status
 * panel's per-server log view. Keeping the last N costs O(1) per line: the list is trimmed in
 * bulk once it reaches about twice N, never shifted line by line.
 */
export class RecentLines {
  private readonly byTag = new Map<string, string[]>();

  constructor(private readonly perTag: number) {}

  push(tag: string, line: string): void {
    let lines = this.byTag.get(tag);
    if (!lines) this.byTag.set(tag, (lines = []));
    lines.push(line);
    if (lines.length >= 2 * this.perTag + 16) lines.splice(0, lines.length - this.perTag);
  }

  /** The last lines under `tag`, oldest first. */
  recent(tag: string): string[] {
    const lines = this.byTag.get(tag) ?? [];
    return lines.slice(Math.max(0, lines.length - this.perTag));
  }

  /** Tags seen so far. */
  tags(): string[] {
    return [...this.byTag.keys()];
  }
}
