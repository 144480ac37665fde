/**
 * The MCP SDK's legacy SSE transports, built into their own file next to the CLI
 * (`dist/proxy/qiming-mcp-sdk-sse.cjs`, see scripts/build.mjs). They bring the SDK's types
 * module (several hundred zod schemas), `raw-body` and `iconv-lite`: about two thirds of what
 * the CLI would otherwise load and compile at every start, for a transport few configs use.
 * The CLI requires this file on first use of an SSE client or server.
 */
export { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
export { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
// The SDK's OAuth client steps (src/proxy/oauth/serverAuth.ts), which share the same zod schemas.
export * from '@modelcontextprotocol/sdk/client/auth.js';
