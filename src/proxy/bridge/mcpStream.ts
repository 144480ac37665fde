/**
 * The bridge's stream link: one MCP session over one upgraded HTTP connection.
 *
 * A client sends `GET /mcp/<id>` (or `/mcp`) with `Connection: Upgrade` and
 * `Upgrade: mcp-stream`, plus the same `Authorization`, `Host` and `Origin` the other routes
 * require. The bridge answers `101 Switching Protocols`, and from then on the connection
 * carries newline-delimited JSON-RPC both ways, exactly as a stdio server's pipes do (the
 * bridge also accepts `Content-Length` framing on it). The connection is the session: it
 * never idles out while open, and closing it ends the session. Any refusal is a plain HTTP
 * answer (401, 403, 404, 503 with `Retry-After`) followed by the connection's end.
 *
 * Why: on a plain request/response the stream link costs what a pipe costs, one write and
 * one read per message on each side, where streamable HTTP costs a request head, a response
 * head and their parsing per message. The app's stdio proxies reach the bridge this way
 * (`bridge` entries); streamable HTTP stays for every other client.
 */
export const MCP_STREAM_UPGRADE = 'mcp-stream';
