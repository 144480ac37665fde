/** The text of a tool result's first content item ('' when it has none). */
export function text(res: unknown): string {
  return ((res as { content: { text: string }[] }).content[0] ?? { text: '' }).text;
}
