/**
 * One line on what a server is for, for the meta-tools' descriptions: the entry's own
 * `"description"`, else what its `serverInfo` says (description, title), else the first
 * sentence of its `instructions`, else the first names of its tools (also beside a line of
 * the server's own that is only a name). Whitespace collapsed, cut to {@link MAX_SUMMARY_CHARS}.
 */

export const MAX_SUMMARY_CHARS = 140;

/** What a summary reads of a server. */
export interface SummarySource {
  /** The entry's `"description"`. */
  configured?: string;
  /** Its `initialize` result (or 2026 discover result). */
  initResult?: Record<string, unknown>;
  /** Its tools' own names, in its order. */
  toolNames: readonly string[];
}

export function serverSummary(src: SummarySource): string {
  const info = (src.initResult?.serverInfo ?? {}) as Record<string, unknown>;
  const said = [src.configured, info.description, info.title, firstSentence(src.initResult?.instructions)];
  const line = said.map(oneLine).find((t) => t !== '');
  const names = src.toolNames.slice(0, 4).join(', ');
  const tools = src.toolNames.length > 4 ? `tools such as ${names}` : `tools: ${names}`;
  // A bare name ("Exa", "Brave Search MCP Server") says little: a few tool names say more.
  if (!line) return cut(tools);
  return cut(line.length < SHORT_LINE_CHARS && src.configured === undefined ? `${line}; ${tools}` : line);
}

/** A server's own line shorter than this gets a few tool names beside it. */
const SHORT_LINE_CHARS = 40;

function oneLine(v: unknown): string {
  return typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : '';
}

/** The first sentence of a text, markdown heading marks dropped. */
function firstSentence(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const text = v.replace(/^[\s#>*-]+/, '');
  const end = text.search(/[.!?](\s|$)|\n\s*\n/);
  return end < 0 ? text : text.slice(0, end + 1);
}

function cut(text: string): string {
  return text.length <= MAX_SUMMARY_CHARS ? text : `${text.slice(0, MAX_SUMMARY_CHARS - 1).trimEnd()}…`;
}
