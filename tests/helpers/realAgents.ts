// The four real ACP agents from node_modules, each run offline against its fake model API: how
// it is started, the settings it needs to stay quiet and local, and the name it gives the model
// for a tool of an MCP entry. Everything an agent writes goes under the `home` it is given.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { FakeModel, Script } from '../fixtures/fakeModels/fakeModelServer.mjs';
import { startAnthropicModel } from '../fixtures/fakeModels/anthropicMessages.mjs';
import { startGeminiModel } from '../fixtures/fakeModels/geminiGenerate.mjs';
import { startOpenaiModel } from '../fixtures/fakeModels/openaiResponses.mjs';
import { ROOT } from './paths.js';

export type { FakeModel, ModelRequest, Script, Turn } from '../fixtures/fakeModels/fakeModelServer.mjs';

const MODULES = join(ROOT, 'node_modules');

export interface AgentLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export interface RealAgent {
  /** The npm package's own name for the agent. */
  name: 'gemini-cli' | 'claude-code-acp' | 'claude-agent-acp' | 'codex-acp';
  /** Its fake model API, answering with `script`. */
  startModel(script: Script): Promise<FakeModel>;
  /**
   * Writes the agent's settings under `home` and says how to run it against the model at
   * `modelUrl`; `base` is the environment every agent gets (PATH, HOME, the outbound trap).
   */
  launch(home: string, modelUrl: string, base: Record<string, string>): AgentLaunch;
  /** The name the agent gives the model for the tool `tool` of its MCP entry `entry`. */
  toolName(entry: string, tool: string): string;
  /**
   * The `host:port`s it is known to try to reach with no setting to stop it; the outbound trap
   * refuses them, and the tests fail on any other.
   */
  refusedHosts: readonly string[];
  /**
   * Whether it keeps a long MCP tool list from the model by itself, behind a search of its own,
   * so that the model cannot call such a tool by name at first.
   */
  defersLongToolLists: boolean;
}

/** Claude Code (behind both Claude agents) names MCP tools `mcp__<entry>__<tool>`. */
const claudeToolName = (entry: string, tool: string) =>
  `mcp__${entry.replace(/[^a-zA-Z0-9_-]/g, '_')}__${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;

/** Both Claude agents: the Claude Code CLI of `@anthropic-ai/claude-agent-sdk` under an ACP adapter. */
function claudeAgent(name: 'claude-code-acp' | 'claude-agent-acp', refusedHosts: string[]): RealAgent {
  return {
    name,
    refusedHosts,
    defersLongToolLists: false,
    startModel: startAnthropicModel,
    launch: (home, modelUrl, base) => ({
      command: process.execPath,
      args: [join(MODULES, '@zed-industries', name, 'dist', 'index.js')],
      env: {
        ...base,
        CLAUDE_CONFIG_DIR: join(home, '.claude'),
        ANTHROPIC_BASE_URL: modelUrl,
        ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-tests',
        // The adapters run Claude Code with permission bypass available, which it refuses to
        // root unless told it is sandboxed (the tests' machines run as root).
        IS_SANDBOX: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        CLAUDE_CODE_DISABLE_FAST_MODE: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        DISABLE_AUTOUPDATER: '1',
      },
    }),
    toolName: claudeToolName,
  };
}

/** gemini-cli's `generateValidName`: `mcp_<entry>_<tool>` once, sanitised, at most 63 characters. */
function geminiToolName(entry: string, tool: string): string {
  const joined = `${entry}_${tool}`;
  let name = (joined.startsWith('mcp_') ? joined : `mcp_${joined}`).replace(/[^a-zA-Z0-9_\-.:]/g, '_');
  if (/^[^a-zA-Z_]/.test(name)) name = `_${name}`;
  return name.length > 63 ? `${name.slice(0, 30)}...${name.slice(-30)}` : name;
}

const geminiCli: RealAgent = {
  name: 'gemini-cli',
  refusedHosts: [],
  defersLongToolLists: false,
  startModel: startGeminiModel,
  launch(home, modelUrl, base) {
    mkdirSync(join(home, '.gemini'), { recursive: true });
    const settings = {
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
    };
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
    return {
      command: process.execPath,
      // A fixed model: `auto` would first ask a classifier model to route the prompt.
      args: [
        join(MODULES, '@google', 'gemini-cli', 'bundle', 'gemini.js'),
        '--experimental-acp',
        '-m',
        'gemini-2.5-flash',
      ],
      env: {
        ...base,
        GEMINI_CLI_HOME: home,
        GEMINI_API_KEY: 'fake-key-for-tests',
        GOOGLE_GEMINI_BASE_URL: modelUrl,
        GEMINI_TELEMETRY_ENABLED: 'false',
      },
    };
  },
  toolName: geminiToolName,
};

const codexAcp: RealAgent = {
  name: 'codex-acp',
  refusedHosts: [],
  // Past a size it hands MCP tools to the model only through its own `tool_search` (BM25).
  defersLongToolLists: true,
  startModel: startOpenaiModel,
  launch(home, modelUrl, base) {
    // A model provider of our own: the Responses API at the fake, its key from FAKE_OPENAI_KEY.
    const config = [
      'model = "gpt-5.4-mini"',
      'model_provider = "fake"',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "${modelUrl}/v1"`,
      'wire_api = "responses"',
      'env_key = "FAKE_OPENAI_KEY"',
      '',
    ].join('\n');
    writeFileSync(join(home, 'config.toml'), config);
    return {
      command: join(MODULES, '@zed-industries', `codex-acp-${process.platform}-${process.arch}`, 'bin', 'codex-acp'),
      args: [],
      env: { ...base, CODEX_HOME: home, FAKE_OPENAI_KEY: 'fake-key-for-tests' },
    };
  },
  // Codex hands an entry's tools to the model in a namespace `mcp__<entry>`; the fake model
  // (openaiResponses.mjs) names a member `<namespace>__<tool>`.
  toolName: (entry, tool) => `mcp__${entry}__${tool}`,
};

export const REAL_AGENTS: readonly RealAgent[] = [
  geminiCli,
  // Its API client warms a connection to the first-party API whatever the base URL.
  claudeAgent('claude-code-acp', ['api.anthropic.com:443']),
  // Its headless plugin set-up fetches the official plugins' blocklist.
  claudeAgent('claude-agent-acp', ['raw.githubusercontent.com:443']),
  codexAcp,
];

/** Answers an agent's permission request with its allow-once option (allow-always if it has none). */
export async function allowOnce(req: RequestPermissionRequest): Promise<RequestPermissionResponse> {
  const option = req.options.find((o) => o.kind === 'allow_once') ?? req.options.find((o) => o.kind === 'allow_always');
  return option
    ? { outcome: { outcome: 'selected', optionId: option.optionId } }
    : { outcome: { outcome: 'cancelled' } };
}
