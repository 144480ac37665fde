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

/** Best-effort text of an unknown thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
