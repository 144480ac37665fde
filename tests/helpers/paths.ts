// Where the tests find the built CLI, the fixtures and the real MCP servers from node_modules.
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'proxy', 'qiming-mcp-stdio-proxy.cjs');
export const FIXTURES = join(ROOT, 'tests', 'fixtures');
const MCP = join(ROOT, 'node_modules', '@modelcontextprotocol');
export const EVERYTHING_SERVER = join(MCP, 'server-everything', 'dist', 'index.js');
export const MEMORY_SERVER = join(MCP, 'server-memory', 'dist', 'index.js');
export const FILESYSTEM_SERVER = join(MCP, 'server-filesystem', 'dist', 'index.js');
