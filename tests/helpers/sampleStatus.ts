/** Realistic RuntimeStatus values for the panel tests. */
import type { RuntimeStatus, ServerStatus } from '../../src/shared/status.js';

/** A server status with sensible defaults. */
export function server(id: string, patch: Partial<ServerStatus> = {}): ServerStatus {
  return { id, transport: 'stdio', state: 'ready', restarts: 0, tools: [], stderrTail: [], sessions: 0, ...patch };
}

/** A bridge status holding `servers`. */
export function runtime(servers: ServerStatus[], bridge: Partial<RuntimeStatus['bridge']> = {}): RuntimeStatus {
  return { bridge: { state: 'ready', pid: 4242, port: 18099, ...bridge }, servers };
}

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** Four servers in different states, as a user might see them. */
export function realisticStatus(): RuntimeStatus {
  return runtime([
    server('filesystem', {
      pid: 31842,
      startedAt: ago(3_725_000),
      readyAt: ago(3_724_000),
      sessions: 2,
      tools: [
        { name: 'read_text_file', description: 'Read the complete contents of a file from the file system as text.' },
        {
          name: 'write_file',
          description: 'Create a new file or completely overwrite an existing file with new content.',
        },
        {
          name: 'list_directory',
          description: 'Get a detailed listing of all files and directories in a specified path.',
        },
        { name: 'search_files', description: 'Recursively search for files and directories matching a pattern.' },
        { name: 'get_file_info', description: 'Retrieve detailed metadata about a file or directory.' },
      ],
      stderrTail: ['Secure MCP Filesystem Server running on stdio', 'Allowed directories: [ "/home/ada/projects" ]'],
    }),
    server('memory', {
      pid: 31855,
      startedAt: ago(42_000),
      state: 'restarting',
      restarts: 2,
      tools: [
        { name: 'create_entities', description: 'Create multiple new entities in the knowledge graph' },
        { name: 'read_graph', description: 'Read the entire knowledge graph' },
      ],
      lastError: 'Process exited with code 1 (signal none) after 41 s',
      stderrTail: ['Knowledge Graph MCP Server running on stdio', 'Error: ENOSPC: no space left on device, write'],
    }),
    server('github', {
      transport: 'http',
      state: 'failed',
      restarts: 5,
      lastError:
        'Connection to https://api.githubcopilot.com/mcp/ failed: HTTP 401 Unauthorized.\nThe server answered: {"error":"bad credentials"}\nCheck the Authorization header of this server in the MCP config.',
      stderrTail: [
        '[transport] POST https://api.githubcopilot.com/mcp/ -> 401',
        '[transport] falling back to SSE',
        '[transport] GET https://api.githubcopilot.com/mcp/ -> 401',
      ],
    }),
    server('everything', {
      pid: 31901,
      startedAt: ago(2_000),
      state: 'starting',
      stderrTail: ['Starting default (STDIO) server...'],
    }),
    server('legacy-search', { transport: 'sse', state: 'disabled' }),
  ]);
}
