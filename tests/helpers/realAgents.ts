// The six real ACP agents from node_modules (pinned devDependencies), each run offline against
// a fake model API of its kind: how it is started, the settings that keep it quiet and local
// and make it ask the client before a tool runs, the name it gives the model for a tool of an
// MCP entry, and how its model reaches a tool it keeps behind a search of its own. Everything an
// agent writes goes under the `home` it is given (Copilot's unpacked package excepted: it goes to
// the repository's .cache/, once). What each agent was seen to send: docs/agents.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientConnection, RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { FakeModel, Script } from '../fixtures/fakeModels/fakeModelServer.mjs';
import { startAnthropicModel } from '../fixtures/fakeModels/anthropicMessages.mjs';
import { startGeminiModel } from '../fixtures/fakeModels/geminiGenerate.mjs';
import { startOpenaiModel } from '../fixtures/fakeModels/openaiResponses.mjs';
import { startOpenaiChatModel } from '../fixtures/fakeModels/openaiChat.mjs';
import { node22 } from './nodeBinaries.js';
import { ROOT } from './paths.js';

export type { FakeModel, ModelRequest, Script, Turn } from '../fixtures/fakeModels/fakeModelServer.mjs';

const MODULES = join(ROOT, 'node_modules');
/** The platform packages' folder part (`linux-x64`, `darwin-arm64`, ...). */
const PLATFORM = `${process.platform}-${process.arch}`;

export interface AgentLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export type AgentName = 'claude-agent-acp' | 'codex-acp' | 'gemini-cli' | 'opencode' | 'copilot' | 'qwen-code';

export interface RealAgent {
  /** The npm package's own name for the agent. */
  name: AgentName;
  /** Its fake model API, answering with `script`. */
  startModel(script: Script): Promise<FakeModel>;
  /**
   * Writes the agent's settings under `home` and says how to run it against the model at
   * `modelUrl`; `base` is the environment every agent gets (PATH, HOME, the outbound trap).
   */
  launch(home: string, modelUrl: string, base: Record<string, string>): AgentLaunch;
  /** What a session needs before its first prompt so that the agent asks the client before a tool runs. */
  afterSession?(conn: ClientConnection, sessionId: string): Promise<void>;
  /** The name the agent gives the model for the tool `tool` of its MCP entry `entry`. */
  toolName(entry: string, tool: string): string;
  /** How its model reaches an MCP tool the agent keeps behind a search of its own, if it does. */
  ownSearch?: OwnSearch;
  /**
   * The `host:port`s it is known to try to reach with no setting to stop it; the outbound trap
   * refuses them, and the tests fail on any other.
   */
  refusedHosts: readonly string[];
}

/**
 * An agent's own search over deferred tools: the tool, its arguments for the tool the model
 * wants (by the agent's name for it), and how the found tool is called next: `listed` (the agent
 * lists it from then on: Claude Code's `ToolSearch`, Codex's built-in `tool_search`) or through
 * the agent's `tool_call` (qwen-code).
 */
export interface OwnSearch {
  tool: string;
  args(name: string): Record<string, unknown>;
  found: 'listed' | 'tool_call';
}

/** Node for an agent whose package needs Node >= 22: this one when it is, else the suite's Node 22. */
function modernNode(): string {
  return Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : node22();
}

/** Claude Code (behind the Claude adapter) and Codex name MCP tools `mcp__<entry>__<tool>`. */
const mcpToolName = (entry: string, tool: string) =>
  `mcp__${entry.replace(/[^a-zA-Z0-9_-]/g, '_')}__${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;

const claudeAgentAcp: RealAgent = {
  name: 'claude-agent-acp',
  // Its headless plugin set-up fetches the official plugins' blocklist.
  refusedHosts: ['raw.githubusercontent.com:443'],
  startModel: startAnthropicModel,
  launch(home, modelUrl, base) {
    mkdirSync(join(home, '.claude'), { recursive: true });
    // Its default mode `auto` asks a classifier model, not the client, before a tool runs.
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' } }));
    return {
      command: modernNode(),
      args: [join(MODULES, '@agentclientprotocol', 'claude-agent-acp', 'dist', 'index.js')],
      env: {
        ...base,
        CLAUDE_CONFIG_DIR: join(home, '.claude'),
        ANTHROPIC_BASE_URL: modelUrl,
        ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-tests',
        // The adapter runs Claude Code with permission bypass available, which it refuses to
        // root unless told it is sandboxed (the tests' machines run as root).
        IS_SANDBOX: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        DISABLE_AUTOUPDATER: '1',
      },
    };
  },
  toolName: mcpToolName,
  // Every MCP tool, however few, is deferred; `select:` loads one by name.
  ownSearch: { tool: 'ToolSearch', args: (name) => ({ query: `select:${name}`, max_results: 5 }), found: 'listed' },
};

const codexAcp: RealAgent = {
  name: 'codex-acp',
  refusedHosts: [],
  startModel: startOpenaiModel,
  launch(home, modelUrl, base) {
    // A model provider of our own: the Responses API at the fake, its key from FAKE_OPENAI_KEY.
    const config = [
      // A model of its bundled catalog that supports its tool search (long MCP lists are deferred).
      'model = "gpt-5.5"',
      'model_provider = "fake"',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "${modelUrl}/v1"`,
      'wire_api = "responses"',
      'env_key = "FAKE_OPENAI_KEY"',
      // ChatGPT apps and the plugin marketplaces are fetched from chatgpt.com and GitHub.
      '[features]',
      'apps = false',
      'plugins = false',
      'remote_plugin = false',
      'plugin_discovery_prefetch = false',
      '',
    ].join('\n');
    writeFileSync(join(home, 'config.toml'), config);
    return {
      command: process.execPath,
      // The adapter drives `codex app-server` from @openai/codex's platform package.
      args: [join(MODULES, '@agentclientprotocol', 'codex-acp', 'dist', 'index.js')],
      env: { ...base, CODEX_HOME: home, FAKE_OPENAI_KEY: 'fake-key-for-tests' },
    };
  },
  // Its default mode ("Auto review") asks a reviewer model, not the client, before a tool runs.
  afterSession: async (conn, sessionId) => {
    await conn.agent.request('session/set_mode', { sessionId, modeId: 'read-only' });
  },
  // Codex hands an entry's tools to the model in a namespace `mcp__<entry>`; the fake model
  // (openaiResponses.mjs) names a member `<namespace>__<tool>`.
  toolName: mcpToolName,
  // Its built-in `tool_search` (BM25 over the deferred tools) loads what it finds into the list.
  ownSearch: {
    tool: 'tool_search',
    args: (name) => ({ query: name.split('__').slice(-2).join(' ').replace(/_/g, ' '), limit: 5 }),
    found: 'listed',
  },
};

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
      args: [join(MODULES, '@google', 'gemini-cli', 'bundle', 'gemini.js'), '--acp', '-m', 'gemini-2.5-flash'],
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

const opencode: RealAgent = {
  name: 'opencode',
  // It installs its plugin SDK into its config folder (a package.json and node_modules there).
  refusedHosts: ['registry.npmjs.org:443'],
  startModel: startOpenaiChatModel,
  launch(home, modelUrl, base) {
    const config = {
      autoupdate: false,
      share: 'disabled',
      // Its default runs every tool unasked.
      permission: { '*': 'ask' },
      provider: {
        fake: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Fake',
          options: { baseURL: `${modelUrl}/v1`, apiKey: 'fake-key-for-tests' },
          models: { 'fake-model': { name: 'Fake model', tool_call: true } },
        },
      },
      model: 'fake/fake-model',
    };
    return {
      // The platform package's binary (`opencode-ai`'s own bin is put in place by an install script).
      command: join(MODULES, `opencode-${PLATFORM}`, 'bin', 'opencode'),
      args: ['acp'],
      env: {
        ...base,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_DATA_HOME: join(home, '.local', 'share'),
        XDG_STATE_HOME: join(home, '.local', 'state'),
        XDG_CACHE_HOME: join(home, '.cache'),
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
        OPENCODE_DISABLE_MODELS_FETCH: 'true',
        OPENCODE_DISABLE_AUTOUPDATE: 'true',
        OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
        OPENCODE_DISABLE_DEFAULT_PLUGINS: 'true',
        OPENCODE_DISABLE_SHARE: 'true',
        // No external plugins: installing them asks the npm registry.
        OPENCODE_PURE: 'true',
      },
    };
  },
  // `<entry>_<tool>`.
  toolName: (entry, tool) => `${entry}_${tool}`,
};

const copilot: RealAgent = {
  name: 'copilot',
  refusedHosts: [],
  startModel: startOpenaiChatModel,
  launch(home, modelUrl, base) {
    return {
      command: join(MODULES, '@github', `copilot-${PLATFORM}`, 'copilot'),
      args: ['--acp', '--no-auto-update'],
      env: {
        ...base,
        // The binary unpacks its package (about 200 MB) into the cache on its first start: once, here.
        XDG_CACHE_HOME: join(ROOT, '.cache', 'agents'),
        COPILOT_HOME: join(home, '.copilot'),
        // Offline: no GitHub sign-in, telemetry or update; the model is a BYOK provider.
        COPILOT_OFFLINE: 'true',
        COPILOT_AUTO_UPDATE: 'false',
        COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`,
        COPILOT_PROVIDER_TYPE: 'openai',
        COPILOT_PROVIDER_API_KEY: 'fake-key-for-tests',
        COPILOT_MODEL: 'gpt-4.1',
      },
    };
  },
  // `<entry>-<tool>`.
  toolName: (entry, tool) => `${entry}-${tool}`,
};

const qwenCode: RealAgent = {
  name: 'qwen-code',
  refusedHosts: [],
  startModel: startOpenaiChatModel,
  launch(home, modelUrl, base) {
    mkdirSync(join(home, '.qwen'), { recursive: true });
    const settings = {
      security: { auth: { selectedType: 'openai' } },
      model: { name: 'fake-model' },
      // Its default `auto` asks a classifier model before a tool runs.
      tools: { approvalMode: 'default' },
      general: { disableAutoUpdate: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    };
    writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify(settings));
    return {
      command: modernNode(),
      args: [join(MODULES, '@qwen-code', 'qwen-code', 'cli-entry.js'), '--acp'],
      env: {
        ...base,
        OPENAI_API_KEY: 'fake-key-for-tests',
        OPENAI_BASE_URL: `${modelUrl}/v1`,
        OPENAI_MODEL: 'fake-model',
      },
    };
  },
  toolName: mcpToolName,
  // Every MCP tool is deferred and named in a reminder; `select:` shows one, `tool_call` calls it.
  ownSearch: { tool: 'tool_search', args: (name) => ({ query: `select:${name}` }), found: 'tool_call' },
};

export const REAL_AGENTS: readonly RealAgent[] = [claudeAgentAcp, codexAcp, geminiCli, opencode, copilot, qwenCode];

/** The agent named `name`. */
export function realAgent(name: AgentName): RealAgent {
  return REAL_AGENTS.find((a) => a.name === name)!;
}

/** Answers an agent's permission request with its allow-once option (allow-always if it has none). */
export async function allowOnce(req: RequestPermissionRequest): Promise<RequestPermissionResponse> {
  const option = req.options.find((o) => o.kind === 'allow_once') ?? req.options.find((o) => o.kind === 'allow_always');
  return option
    ? { outcome: { outcome: 'selected', optionId: option.optionId } }
    : { outcome: { outcome: 'cancelled' } };
}
