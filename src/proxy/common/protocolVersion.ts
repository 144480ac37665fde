/**
 * The MCP protocol revisions this proxy speaks, newest first. They are the SDK's own values
 * (tests/proxy/common/protocolVersion.test.ts keeps them equal), held here so that start-up does not
 * load the SDK's types module, which builds several hundred zod schemas on import (about
 * 30 ms here) for two constants.
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0]!;
