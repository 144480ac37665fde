/**
 * Element construction for the panel. Text goes in through textContent only: server ids,
 * tool descriptions, errors and log lines come from the servers and must never be parsed
 * as markup.
 */

/** Creates `<tag class=...>` with optional attributes and text. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
  attrs?: Record<string, string>,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  if (attrs) for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** Sets textContent only when it changed, so screen readers and selections are not disturbed. */
export function setText(node: Node, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** Shows or hides an element through the `hidden` attribute. */
export function setHidden(node: HTMLElement, hidden: boolean): void {
  if (node.hidden !== hidden) node.hidden = hidden;
}

let nextId = 0;
/** A document-unique element id; server ids are not used because they may contain any character. */
export function uniqueId(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}
