/** The text of a tool result's first content item ('' when it has none). */
export function text(res: unknown): string {
  return ((res as { content: { text: string }[] }).content[0] ?? { text: '' }).text;
}

/** Calls `name` with no arguments: the text of its result's first item, or `error: <message>` when the call fails. */
export async function callText(
  client: { callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown> },
  name: string,
): Promise<string> {
  try {
    const r = (await client.callTool({ name, arguments: {} })) as { content: { text?: string }[] };
    return r.content[0]?.text ?? '';
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}
