// The permission pass-through recognises the runtime's MCP tool in the permission prompts of each
// agent, as each was seen to send them (docs/agents.md: claude-agent-acp 0.101.0, codex-acp 2.6.0,
// gemini-cli 0.61.0, opencode 1.18.33, copilot 1.0.102, qwen-code 0.24.4), and nothing else: a
// built-in tool, another entry's tool or a bare name the agent did not announce under the entry
// stays the app's to answer. `call_tool` is the tool it calls, read from the input each agent
// sends; `search_tools` runs no server's tool. The real agents' prompts are answered in tests/agents/.
import { describe, expect, it } from 'vitest';
import type { RequestPermissionRequest } from '@agentclientprotocol/sdk';
import {
  aggregateToolName,
  answerPermission,
  promptedTool,
  type AnnouncedCall,
} from '../../src/main/acp/permissionPolicy.js';

const ENTRIES = ['qiming'];
const OPTIONS: RequestPermissionRequest['options'] = [
  { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];
const prompt = (toolCall: Record<string, unknown>): RequestPermissionRequest => ({
  sessionId: 's1',
  toolCall: { toolCallId: 'call_1', ...toolCall },
  options: OPTIONS,
});

/** Each agent's prompt for the aggregate's `github__search_repositories`, with its announcement. */
const SEEN: [string, RequestPermissionRequest, AnnouncedCall | undefined][] = [
  [
    'claude-agent-acp (stdio and http entries)',
    prompt({
      title: 'mcp__qiming__github__search_repositories',
      _meta: { claudeCode: { toolName: 'mcp__qiming__github__search_repositories' } },
    }),
    undefined,
  ],
  ['gemini-cli', prompt({ title: 'github__search_repositories (qiming MCP Server)', kind: 'other' }), undefined],
  ['opencode', prompt({ title: 'qiming_github__search_repositories', rawInput: {} }), undefined],
  [
    'copilot',
    prompt({ title: 'github__search_repositories', rawInput: { query: 'x' } }),
    { title: 'qiming-github__search_repositories' },
  ],
  [
    'qwen-code',
    prompt({
      title: '{"query":"x"}',
      rawInput: { query: 'x' },
      _meta: { toolName: 'mcp__qiming__github__search_repositories' },
    }),
    { title: 'ToolCall' },
  ],
  [
    'codex-acp',
    prompt({ kind: 'execute' }),
    {
      title: 'mcp.qiming.github__search_repositories',
      rawInput: { server: 'qiming', tool: 'github__search_repositories', arguments: { query: 'x' } },
    },
  ],
];

describe('the permission prompts of each agent', () => {
  for (const [agent, req, announced] of SEEN)
    it(`${agent}: its prompt names the aggregate's tool`, () => {
      expect(aggregateToolName(req, ENTRIES, announced)).toBe('github__search_repositories');
      // Not for an entry of another name.
      expect(aggregateToolName(req, ['other'], announced)).toBeUndefined();
    });

  it("reads the tool call_tool calls from each agent's input, and knows search_tools", () => {
    const args = { name: 'github__search_repositories', arguments: { query: 'x' } };
    // gemini-cli: the input as the text of its content.
    const gemini = prompt({
      title: 'call_tool (qiming MCP Server)',
      content: [{ type: 'content', content: { type: 'text', text: JSON.stringify(args) } }],
    });
    // Copilot: the tool's title in the prompt, its input beside it.
    const copilot = prompt({ title: 'Call a tool', rawInput: args });
    const codexSaid = {
      title: 'mcp.qiming.call_tool',
      rawInput: { server: 'qiming', tool: 'call_tool', arguments: args },
    };
    const qwen = prompt({ title: JSON.stringify(args), rawInput: args, _meta: { toolName: 'mcp__qiming__call_tool' } });
    // The arguments a grant names are those call_tool passes on, not call_tool's own.
    const want = { name: 'github__search_repositories', arguments: { query: 'x' } };
    expect(promptedTool(gemini, ENTRIES)).toEqual(want);
    expect(promptedTool(copilot, ENTRIES, { title: 'qiming-call_tool' })).toEqual(want);
    expect(promptedTool(prompt({}), ENTRIES, codexSaid)).toEqual(want);
    expect(promptedTool(qwen, ENTRIES)).toEqual(want);
    // OpenCode asks before it says the input: the app decides.
    expect(promptedTool(prompt({ title: 'qiming_call_tool', rawInput: {} }), ENTRIES)).toBeUndefined();
    expect(promptedTool(prompt({ title: 'qiming_search_tools' }), ENTRIES)).toEqual({ search: true });
    // A tool named directly: the prompt's input, else what the agent announced (Codex's `arguments`).
    expect(promptedTool(prompt({ title: 'mcp__qiming__x', rawInput: { a: 1 } }), ENTRIES)).toEqual({
      name: 'x',
      arguments: { a: 1 },
    });
    expect(
      promptedTool(prompt({}), ENTRIES, {
        title: 'mcp.qiming.x',
        rawInput: { server: 'qiming', tool: 'x', arguments: { a: 2 } },
      }),
    ).toEqual({ name: 'x', arguments: { a: 2 } });
    // gemini-cli: a tool named directly, its input as the text of the prompt's content.
    expect(
      promptedTool(
        prompt({
          title: 'x (qiming MCP Server)',
          content: [{ type: 'content', content: { type: 'text', text: '{"a":3}' } }],
        }),
        ENTRIES,
      ),
    ).toEqual({ name: 'x', arguments: { a: 3 } });
  });

  it('leaves built-in tools, bare names not announced under the entry, and sentences to the app', () => {
    expect(aggregateToolName(prompt({ title: 'bash' }), ENTRIES, { title: 'bash' })).toBeUndefined();
    expect(aggregateToolName(prompt({ title: 'github__search_repositories' }), ENTRIES)).toBeUndefined();
    expect(
      aggregateToolName(prompt({ title: 'github__search_repositories' }), ENTRIES, { title: 'other-x' }),
    ).toBeUndefined();
    expect(aggregateToolName(prompt({ title: 'Run qiming_x now' }), ENTRIES)).toBeUndefined();
    expect(aggregateToolName(prompt({ title: 'two words (qiming MCP Server)' }), ENTRIES)).toBeUndefined();
    // Codex's announcement for another server than the entry.
    expect(
      aggregateToolName(prompt({}), ENTRIES, { title: 'mcp.qiming.x', rawInput: { server: 'other', tool: 'x' } }),
    ).toBeUndefined();
  });

  it("answers an allowed tool with the agent's allow-once option, a denied one with reject-once, from the announcement", async () => {
    const asked: string[] = [];
    const lines: string[] = [];
    const runtime = {
      approvalFor: async (name: string) =>
        name === 'github__search_repositories'
          ? { answer: 'allow' as const, rule: 'test rule', server: 'github', tool: 'search_repositories' }
          : { answer: 'deny' as const, rule: 'deny rule', server: 'github', tool: 'delete' },
    };
    const app = async (req: RequestPermissionRequest) => {
      asked.push(String(req.toolCall.title));
      return { outcome: { outcome: 'cancelled' as const } };
    };
    const [, copilotReq, copilotSaid] = SEEN[3];
    expect(
      await answerPermission(copilotReq, runtime, ENTRIES, undefined, app, (l) => lines.push(l), copilotSaid),
    ).toEqual({
      outcome: { outcome: 'selected', optionId: 'yes' },
    });
    const denied = prompt({ title: 'github__delete (qiming MCP Server)' });
    expect(await answerPermission(denied, runtime, ENTRIES, undefined, app, (l) => lines.push(l))).toEqual({
      outcome: { outcome: 'selected', optionId: 'no' },
    });
    // Without its announcement Copilot's bare name is the app's.
    await answerPermission(copilotReq, runtime, ENTRIES, undefined, app, (l) => lines.push(l));
    expect(asked).toEqual(['github__search_repositories']);
    expect(lines).toEqual([
      'approval: the agent\'s permission prompt for "github__search_repositories" (session s1) answered allow by test rule',
      'approval: the agent\'s permission prompt for "github__delete" (session s1) answered deny by deny rule',
    ]);
  });

  it("reads a per-server entry's tool as that server's, and takes the policy's answer only for that server's tool", async () => {
    const github = [{ name: 'github', serverId: 'github' }, 'qiming'];
    const claude = prompt({
      title: 'mcp__github__search_repositories',
      rawInput: { query: 'x' },
      _meta: { claudeCode: { toolName: 'mcp__github__search_repositories' } },
    });
    expect(aggregateToolName(claude, github)).toBe('github__search_repositories');
    expect(promptedTool(claude, github)).toEqual({
      name: 'github__search_repositories',
      arguments: { query: 'x' },
      owner: { server: 'github', tool: 'search_repositories' },
    });
    // A server's own tool named like a meta-tool is that server's tool.
    expect(promptedTool(prompt({ title: 'mcp__github__search_tools', rawInput: {} }), github)).toMatchObject({
      name: 'github__search_tools',
    });
    // The aggregate entry beside it reads as before.
    expect(aggregateToolName(prompt({ title: 'mcp__qiming__github__x' }), github)).toBe('github__x');

    const looked: string[] = [];
    const lines: string[] = [];
    const app = async () => ({ outcome: { outcome: 'cancelled' as const } });
    const answer = (runtime: Parameters<typeof answerPermission>[1], req: RequestPermissionRequest, entries = github) =>
      answerPermission(req, runtime, entries, undefined, app, (l) => lines.push(l));
    const table: Record<string, { answer: 'allow' | 'deny'; rule: string; server: string; tool: string }> = {
      github__search_repositories: { answer: 'allow', rule: 'r', server: 'github', tool: 'search_repositories' },
      // Under `"toolNaming": "original"` a unique tool keeps its own name.
      create_entities: { answer: 'allow', rule: 'r', server: 'memory', tool: 'create_entities' },
      // The aggregate reads `a__b__c` as a__b's `c`, not a's `b__c`.
      a__b__c: { answer: 'allow', rule: 'r', server: 'a__b', tool: 'c' },
    };
    const runtime = {
      approvalFor: async (name: string) => {
        looked.push(name);
        return table[name];
      },
    };
    const allowed = { outcome: { outcome: 'selected', optionId: 'yes' } };
    expect(await answer(runtime, claude)).toEqual(allowed);
    expect(looked).toEqual(['github__search_repositories']);
    looked.length = 0;
    const memory = [{ name: 'memory', serverId: 'memory' }];
    expect(await answer(runtime, prompt({ title: 'mcp__memory__create_entities', rawInput: {} }), memory)).toEqual(
      allowed,
    );
    expect(looked).toEqual(['memory__create_entities', 'create_entities']);
    looked.length = 0;
    const a = [{ name: 'a', serverId: 'a' }];
    expect(await answer(runtime, prompt({ title: 'mcp__a__b__c', rawInput: {} }), a)).toEqual({
      outcome: { outcome: 'cancelled' },
    });
    expect(looked).toEqual(['a__b__c', 'b__c']);
    expect(lines).toHaveLength(2);
  });
});
