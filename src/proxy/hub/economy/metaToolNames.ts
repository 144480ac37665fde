/**
 * The names of the tools an aggregate answers itself when it lists by search: reserved in
 * aggregate scope, so a server's tool of the same name keeps its `<serverId>__` prefix
 * (naming.ts) and a call by one of these names always reaches the meta-tool. A leaf.
 */
export const SEARCH_TOOLS = 'search_tools';
export const CALL_TOOL = 'call_tool';

export const META_TOOL_NAMES: ReadonlySet<string> = new Set([SEARCH_TOOLS, CALL_TOOL]);
