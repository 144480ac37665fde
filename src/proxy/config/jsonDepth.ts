/**
 * The one bound on how deep a config may nest. JSON.parse reads any depth, but
 * JSON.stringify, structuredClone, jsonc-parser and every recursive walk of a config (the
 * import's conversion, the diff, the app's signature) run out of stack somewhere past a few
 * thousand levels and throw a RangeError. A config, a pasted snippet or a change body nested
 * deeper than {@link MAX_CONFIG_DEPTH} is refused up front with a message naming the limit;
 * real configs nest fewer than ten levels.
 *
 * Both checks are loops with no recursion, so they are safe on any input.
 */

/** How many arrays and objects may enclose one another in a config. */
export const MAX_CONFIG_DEPTH = 100;

/** The message for `what` (a file, "the snippet", "the change") nested too deep. */
export function depthMessage(what: string): string {
  return `${what} nests arrays and objects more than ${MAX_CONFIG_DEPTH} levels deep (the limit is ${MAX_CONFIG_DEPTH})`;
}

/**
 * Whether JSON or JSONC `text` opens more than `max` arrays and objects inside one another,
 * from a scan of the text that skips strings and comments (malformed text is left to the
 * parser: this only counts brackets).
 */
export function textNestsDeeper(text: string, max = MAX_CONFIG_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c /* \ */) i++;
    } else if (c === 0x2f /* / */ && text.charCodeAt(i + 1) === 0x2f) {
      while (i < text.length && text.charCodeAt(i) !== 0x0a) i++;
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a /* * */) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

/** Whether an already-parsed value has arrays and objects nested more than `max` deep. */
export function valueNestsDeeper(value: unknown, max = MAX_CONFIG_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
