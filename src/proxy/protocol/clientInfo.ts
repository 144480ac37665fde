/**
 * A client's name and version from its `clientInfo` (2025-11-25: `initialize`'s params;
 * 2026-07-28: each request's envelope), bounded in length for the status and the records.
 */

export function clientNameOf(info: unknown): string | undefined {
  const name = (info as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name.slice(0, 100) : undefined;
}

export function clientVersionOf(info: unknown): string | undefined {
  const version = (info as { version?: unknown } | undefined)?.version;
  return typeof version === 'string' ? version.slice(0, 40) : undefined;
}
