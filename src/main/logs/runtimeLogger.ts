/**
 * The narrow logger the main-process runtime writes to. electron-log's scoped loggers
 * (`log.scope('bridge')`) satisfy it as they are; tests pass an array-backed one.
 */
export interface RuntimeLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A logger that drops everything (the default when the app gives none). */
export const silentLogger: RuntimeLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/**
 * Warnings and errors to stderr, each line prefixed with `[qiming-mcp-runtime]`: the default
 * of `McpRuntime` when the app gives no logger, so a failure is never silent.
 */
export const stderrLogger: RuntimeLogger = {
  debug: () => {},
  info: () => {},
  warn: (message) => void process.stderr.write(`[qiming-mcp-runtime] warn: ${message}\n`),
  error: (message) => void process.stderr.write(`[qiming-mcp-runtime] error: ${message}\n`),
};

/** Best-effort text of an unknown thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
