/**
 * Entry of `mcp-app.js`, the panel page's second script (scripts/buildRenderer.mjs): MCP Apps'
 * host side (`mountMcpApp`, with ext-apps and its SDK), loaded at the first "Open app"
 * (mcpAppLoader.ts), which reads it from the global named there.
 */
import { mountMcpApp } from './mountMcpApp.js';
import { MCP_APP_GLOBAL } from './mcpAppLoader.js';

(window as unknown as Record<string, unknown>)[MCP_APP_GLOBAL] = { mountMcpApp };
