/** Where npm `node@22` is installed (`<repo>/.cache/node22`). */
export const NODE22_PREFIX: string;
/** Path of a Node 22 binary: $QIMING_NODE22, else npm node@22 in .cache/node22 (installed when absent). */
export function ensureNode22(options?: { quiet?: boolean }): string;
