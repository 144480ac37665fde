// Real ACP agents (claude-agent-acp over its stdio proxy, gemini-cli over its stdio proxy,
// copilot over the bridge's http /mcp, each against its fake model API on loopback) ask permission
// for the runtime's MCP tools themselves, each in its own words (docs/agents.md); AcpEngine answers
// from the bridge's approval policy for allow and deny tools, and passes an ask tool's prompt to
// the app, whose allow is granted to the bridge's own ask for that call: the user is asked once
// per call, never twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { McpRuntime, type ApprovalRequest } from '../../src/main/runtime/mcpRuntime.js';
import { AcpEngine } from '../../src/main/acp/acpEngine.js';
import { DEFAULT_ENTRY_NAME } from '../../src/main/acp/acp.js';
import { nodeCommand } from '../../src/main/runtime/cliPath.js';
import { cleanupRuntimes, ensureCli, FIXTURES, memoryLogger, tempDir, writeConfig } from '../main/mainHarness.js';
import { descendantsOf } from '../helpers/procTree.js';
import { waitAllNotRunning } from '../helpers/processGone.js';
import { startOutboundTrap } from '../helpers/outboundTrap.js';
import { allowOnce, realAgent, type AgentName } from '../helpers/realAgents.js';

const AGENTS: AgentName[] = ['claude-agent-acp', 'gemini-cli', 'copilot'];
const SERVER = join(FIXTURES, 'annotatedToolsServer.mjs');

let runtime: McpRuntime;
let ranFile: string;
const pids = new Set<number>();
const bridgeAsks: ApprovalRequest[] = [];
const log = memoryLogger();

beforeAll(async () => {
  const dir = tempDir('qiming-approval-agent-');
  ranFile = join(dir, 'ran.txt');
  const configFile = join(dir, 'mcp.json');
  writeConfig(configFile, {
    toolExposure: 'all',
    mcpServers: {
      a: { command: process.execPath, args: [SERVER, '--ran', ranFile], approval: { delete_note: 'deny' } },
    },
  });
  runtime = new McpRuntime({ configFile, cliPath: ensureCli(), logger: log.logger, watchConfig: false });
  runtime.on('status', (s) => {
    for (const p of [s.bridge.pid, ...s.servers.map((x) => x.pid)]) if (p) pids.add(p);
  });
  // The app's own ask: it must never be reached here (the agent's prompt already asked the user).
  runtime.on('approval', (r) => {
    bridgeAsks.push(r);
    r.answer('deny');
  });
  await runtime.start();
  await runtime.whenReady();
}, 60_000);

afterAll(async () => {
  expect(await cleanupRuntimes([runtime], pids)).toEqual([]);
});

describe('an ACP agent asks permission for an MCP tool', () => {
  for (const agentName of AGENTS)
    it(
      `${agentName}: the policy answers allow and deny tools, the app an ask tool, once`,
      { timeout: 180_000 },
      async () => {
        const agent = realAgent(agentName);
        const ranBefore = ranLines().length;
        const logBefore = log.lines.length;
        const home = tempDir('qiming-approval-home-');
        const cwd = join(home, 'project');
        mkdirSync(cwd);
        const trap = await startOutboundTrap();
        const name = (tool: string) => agent.toolName(DEFAULT_ENTRY_NAME, `a__${tool}`);
        // The prompt names the tool; the model calls it once (found first with the agent's own search, if any), then answers.
        const model = await agent.startModel((req) => {
          const tool = /run (\w+) now/.exec(req.prompt)?.[1];
          if (!tool || req.tools.length === 0) return { text: 'ok' };
          const own = agent.ownSearch?.found === 'listed' ? agent.ownSearch : undefined;
          const searched = own && req.tools.includes(own.tool) ? 1 : 0;
          if (own && searched && req.toolResults.length === 0)
            return { tool: own.tool, arguments: own.args(name(tool)) };
          if (req.toolResults.length === searched && req.tools.includes(name(tool)))
            return { tool: name(tool), arguments: { text: 'x' } };
          return { text: 'done' };
        });
        const appAsked: RequestPermissionRequest[] = [];
        const engine = new AcpEngine({
          ...agent.launch(home, model.url, {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: home,
            LANG: 'C.UTF-8',
            ...trap.env,
          }),
          cwd,
          runtime,
          mcp: { cliPath: ensureCli(), node: nodeCommand() },
          logger: log.logger,
          onPermission: async (req) => {
            appAsked.push(req);
            return allowOnce(req);
          },
        });
        let tree: number[] = [];
        try {
          await engine.start();
          const { sessionId } = await engine.newSession(cwd);
          await agent.afterSession?.(engine.conn, sessionId);
          // The deny last: an agent may end its turn on a rejected tool as an interruption.
          for (const tool of ['read_notes', 'write_note', 'delete_note']) {
            const res = await engine.conn.agent.request('session/prompt', {
              sessionId,
              prompt: [{ type: 'text', text: `Please run ${tool} now.` }],
            });
            if (tool !== 'delete_note') expect(res.stopReason).toBe('end_turn');
          }
        } finally {
          if (engine.pid !== undefined) tree = [engine.pid, ...descendantsOf(engine.pid)];
          await engine.stop({ deadlineMs: 5000 });
          await model.close();
          await trap.close();
        }
        expect(await waitAllNotRunning(tree, 8000)).toEqual([]);
        // read_notes (allow) ran without the app; delete_note (deny) never reached the server;
        // write_note (ask) was asked in the agent's prompt only, and the bridge took that answer.
        expect(ranLines().slice(ranBefore)).toEqual(['read_notes', 'write_note']);
        expect(appAsked).toHaveLength(1);
        expect(JSON.stringify(appAsked[0].toolCall)).toContain('write_note');
        expect(bridgeAsks).toEqual([]);
        const text = log.lines.slice(logBefore).join('\n');
        // Copilot runs a tool annotated read-only without asking anyone.
        if (agentName !== 'copilot') expect(text).toContain(`permission prompt for "a__read_notes"`);
        expect(text).toMatch(
          /permission prompt for "a__delete_note" .* answered deny by mcpServers\.a\.approval\["delete_note"\]/,
        );
      },
    );
});

/** The tools that ran, one line per call that reached the server. */
function ranLines(): string[] {
  return existsSync(ranFile) ? readFileSync(ranFile, 'utf8').split('\n').filter(Boolean) : [];
}
