/**
 * Text an install writes into a config entry is taken literally: the runtime expands `${NAME}`,
 * `${secret:NAME}` and `$$` in entry strings when the server starts (config/envExpand.ts), so
 * every `$` that came from a registry, a bundle or the user's typing is written as `$$`. Only
 * the references the install makes itself (`${QIMING_DATA_DIR}`, `${QIMING_NODE}`,
 * `${secret:...}` for a stored value) stay live.
 */

/** `text` as an entry string that expands to exactly `text`. */
export function asLiteral(text: string): string {
  return text.replace(/\$/g, '$$$$');
}

/** What an entry string written by {@link asLiteral} stands for. */
export function fromLiteral(text: string): string {
  return text.replace(/\$\$/g, '$$');
}

/** Every value of `map` through {@link asLiteral}. */
export function literalValues(map: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, asLiteral(v)]));
}
