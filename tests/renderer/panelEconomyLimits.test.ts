// The tool economy line in real Chromium against the HTTP stand-in of the bridge, for what a
// real bridge rarely shows on demand: each configured mode's wording, no economy at all (a
// runtime before its bridge's first status), the bridge's most sessions and tools folded and
// bounded, client and tool names that are markup shown as text, a user's fold kept across
// updates, a mode flip told to screen readers without rebuilding the line, and the agent
// sessions at most 8 with the rest counted, each list's wording, an agent name of markup as text.
import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { panelForFile, type PanelPage } from '../helpers/panelBrowser.js';
import { startStatusHttpHarness, type StatusHttpHarness } from '../helpers/statusHttpHarness.js';
import { runtime, server } from '../helpers/sampleStatus.js';
import type {
  AgentSessionStatus,
  EconomySessionStatus,
  RuntimeStatus,
  ToolEconomyStatus,
} from '../../src/shared/status.js';

const panel = panelForFile();
let harness: StatusHttpHarness | undefined;
let current: PanelPage | undefined;

afterEach(async () => {
  const errors = current?.errors ?? [];
  await current?.context.close();
  await harness?.close();
  current = undefined;
  harness = undefined;
  expect(errors).toEqual([]);
});

const tools = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ name: `${prefix}_${i}`, description: `Tool ${i}` }));

function economy(patch: Partial<ToolEconomyStatus> = {}): ToolEconomyStatus {
  return {
    exposure: 'auto',
    inForce: 'search',
    budgetTokens: 20_000,
    totalTools: 370,
    totalTokens: 122_400,
    alwaysServers: [],
    sessions: [],
    ...patch,
  };
}

function withEconomy(e: ToolEconomyStatus | undefined): RuntimeStatus {
  const status = runtime([
    server('github', { tools: tools('gh', 40), toolCount: 40, toolTokens: 30_600 }),
    server('playwright', { tools: tools('pw', 21), toolCount: 21, toolTokens: 6_150 }),
    server('memory', { tools: tools('mem', 9), toolCount: 9, toolTokens: 2_700 }),
    server('off', { state: 'disabled' }),
  ]);
  return e ? { ...status, economy: e } : status;
}

function sessions(n: number, loaded: number): EconomySessionStatus[] {
  return Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    client: `agent-${i + 1}`,
    startedAt: new Date(0).toISOString(),
    loaded: Array.from({ length: loaded }, (_, j) => `github__tool_${i}_${j}`),
  }));
}

async function open(status: RuntimeStatus): Promise<{ page: Page; harness: StatusHttpHarness }> {
  harness = await startStatusHttpHarness({ staticDir: panel.dir, status });
  current = await panel.newPage({ viewport: { width: 400, height: 900 } });
  await current.page.goto(harness.pageUrl);
  await current.page.locator('li.server').first().waitFor();
  return { page: current.page, harness };
}

const line = (page: Page) => page.locator('.economy-line').textContent();
const waitLine = (page: Page, pattern: RegExp) =>
  page.waitForFunction(
    (src) => new RegExp(src).test(document.querySelector('.economy-line')?.textContent ?? ''),
    pattern.source,
  );

describe('the tool economy line', () => {
  it('says which mode is in force and why, for every setting, and hides without an economy', async () => {
    const { page, harness } = await open(withEconomy(undefined));
    expect(await page.locator('section.economy').isHidden()).toBe(true);
    expect(await page.locator('li.server[data-server-id="github"] details.tools summary').textContent()).toBe(
      '40 tools \u00b7 ~30.6k tokens',
    );

    const cases: [Partial<ToolEconomyStatus>, string][] = [
      [
        { alwaysServers: ['memory'] },
        'Tool search on (auto: ~122k tokens over the 20k budget) \u00b7 370 tools from 3 servers \u00b7 always listed: memory',
      ],
      [
        { inForce: 'all', totalTokens: 9_950, totalTools: 70, alwaysServers: ['memory'] },
        'All tools listed (auto: ~10k tokens within the 20k budget) \u00b7 70 tools from 3 servers',
      ],
      [
        { exposure: 'all', inForce: 'all' },
        'All tools listed (set to "all" in the config; ~122k tokens) \u00b7 370 tools from 3 servers',
      ],
      [
        { exposure: 'search', budgetTokens: 12_500, totalTokens: 800 },
        'Tool search on (set to "search" in the config; ~800 tokens) \u00b7 370 tools from 3 servers',
      ],
    ];
    for (const [patch, expected] of cases) {
      harness.setStatus(withEconomy(economy(patch)));
      await waitLine(page, new RegExp(`^${expected.replace(/[().^$*+?[\]{}|\\]/g, '\\$&')}$`));
      expect(await line(page)).toBe(expected);
      // "always listed" on a card only while search is on.
      const memory = await page.locator('li.server[data-server-id="memory"] details.tools summary').textContent();
      const always = patch.alwaysServers?.length && (patch.inForce ?? 'search') === 'search';
      expect(memory).toBe(`9 tools \u00b7 ~2.7k tokens${always ? ' \u00b7 always listed' : ''}`);
      // Search on with no session that searched yet: said; in "all" mode nothing to say.
      expect(await page.locator('.economy-none').isVisible()).toBe((patch.inForce ?? 'search') === 'search');
    }
  });

  it('folds a long list, shows at most 8 sessions and 12 tools each, and keeps the user’s fold', async () => {
    const { page, harness } = await open(withEconomy(economy({ sessions: sessions(2, 3) })));
    const details = page.locator('details.economy-sessions');
    await page.locator('li.economy-session').nth(1).waitFor();
    expect(await details.getAttribute('open')).toBe('');
    expect(await details.locator('summary').textContent()).toBe('Tools loaded by search: 2 agent sessions, 6 tools');

    // The bridge names at most 32 sessions with at most 64 tools each.
    harness.setStatus(withEconomy(economy({ sessions: sessions(32, 64) })));
    await page.waitForFunction(() => document.querySelectorAll('li.economy-session').length === 8);
    expect(await details.getAttribute('open')).toBeNull();
    expect(await details.locator('summary').textContent()).toBe(
      'Tools loaded by search: 32 agent sessions, 2048 tools',
    );
    expect(await page.locator('.economy-more').textContent()).toBe('and 24 more sessions');
    const rows = page.locator('li.economy-session');
    expect(await rows.locator('.economy-client').allTextContents()).toEqual(
      Array.from({ length: 8 }, (_, i) => `agent-${i + 1}`),
    );
    expect(await rows.first().locator('.economy-tool code').count()).toBe(12);
    expect(await rows.first().locator('.economy-tool-more').textContent()).toBe('+52 more');
    expect(await rows.first().locator('.economy-session-meta').textContent()).toBe(
      ' \u00b7 session 1 \u00b7 64 tools loaded',
    );

    // Unfolded by the user, it stays so as the list shrinks and grows again.
    await details.locator('summary').click();
    expect(await details.getAttribute('open')).toBe('');
    await details.evaluate((d) => ((d as unknown as { tag: string }).tag = 'same node'));
    harness.setStatus(withEconomy(economy({ sessions: sessions(1, 1) })));
    await page.waitForFunction(() => document.querySelectorAll('li.economy-session').length === 1);
    harness.setStatus(withEconomy(economy({ sessions: sessions(20, 5) })));
    await page.waitForFunction(() => document.querySelectorAll('li.economy-session').length === 8);
    expect(await details.getAttribute('open')).toBe('');
    expect(await page.locator('.economy-more').isVisible()).toBe(true);
    expect(await details.evaluate((d) => (d as unknown as { tag?: string }).tag)).toBe('same node');
    // The narrow window holds it all.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
  });

  it("names the agent proxy of a session reported from the app's chain, apart from the bridge's session of the same number", async () => {
    const at = new Date(0).toISOString();
    const { page } = await open(
      withEconomy(
        economy({
          sessions: [
            { id: 1, agentPid: 4242, client: 'gemini-cli', startedAt: at, loaded: ['a__slow'] },
            { id: 1, client: 'inspector', startedAt: at, loaded: ['b__echo', 'b__add'] },
          ],
        }),
      ),
    );
    await page.locator('li.economy-session').nth(1).waitFor();
    expect(await page.locator('li.economy-session .economy-session-meta').allTextContents()).toEqual([
      ' \u00b7 agent proxy 4242, session 1 \u00b7 1 tool loaded',
      ' \u00b7 session 1 \u00b7 2 tools loaded',
    ]);
  });

  it('shows client and tool names that are markup as text, and tells screen readers of a mode flip', async () => {
    const evil = '<img src=x onerror="window.pwned=1">';
    const { page, harness } = await open(
      withEconomy(
        economy({
          inForce: 'all',
          sessions: [{ id: 7, client: evil, startedAt: new Date(0).toISOString(), loaded: ['<b>bold</b>'] }],
        }),
      ),
    );
    await page.locator('li.economy-session').waitFor();
    expect(await page.locator('.economy-client').textContent()).toBe(evil);
    expect(await page.locator('.economy-tool code').textContent()).toBe('<b>bold</b>');
    expect(
      await page.evaluate(() => ({
        imgs: document.querySelectorAll('section.economy img').length,
        bolds: document.querySelectorAll('section.economy b').length,
        pwned: (window as unknown as { pwned?: number }).pwned,
      })),
    ).toEqual({ imgs: 0, bolds: 0, pwned: undefined });

    // A client without a name is still a row.
    harness.setStatus(
      withEconomy(economy({ sessions: [{ id: 8, startedAt: new Date(0).toISOString(), loaded: ['memory__x'] }] })),
    );
    await page.waitForFunction(() => document.querySelector('.economy-client')?.textContent === 'Unnamed client');
    expect(await page.locator('[aria-live="polite"]').textContent()).toBe('Tool search is now on.');
    expect(await page.locator('section.economy').getAttribute('data-mode')).toBe('search');
  });

  it('lists at most 8 agent sessions with the list each is handed, the rest counted, names as text', async () => {
    const evil = '<img src=x onerror="window.pwned=1">';
    const agent = (id: number, patch: Partial<AgentSessionStatus> = {}): AgentSessionStatus => ({
      id,
      agent: `agent-${id}`,
      transport: 'stdio',
      listedBy: 'runtime',
      tools: 'search',
      connections: 1,
      startedAt: new Date(0).toISOString(),
      ...patch,
    });
    const agents = [
      agent(11, { agent: evil, transport: 'http', listedBy: 'server', tools: 'all' }),
      agent(10, { listedBy: 'agent', tools: 'all', connections: 2 }),
      agent(9, { tools: 'all' }),
      agent(8, { connections: 0, endedAt: new Date(1000).toISOString() }),
      ...Array.from({ length: 7 }, (_, i) => agent(7 - i)),
    ];
    const { page } = await open(withEconomy(economy({ agents })));
    await page.locator('li.economy-agent').first().waitFor();
    const rows = await page.locator('li.economy-agent').allTextContents();
    expect(rows).toHaveLength(8);
    expect(rows.slice(0, 4)).toEqual([
      `${evil} \u00b7 http \u00b7 1 connection \u00b7 every tool: one entry per server, each server's own list`,
      'agent-10 \u00b7 stdio \u00b7 2 connections \u00b7 every tool: the agent searches by itself',
      "agent-9 \u00b7 stdio \u00b7 1 connection \u00b7 every tool: the runtime's setting lists them all",
      "agent-8 \u00b7 stdio \u00b7 ended \u00b7 the runtime's tool search (search_tools, call_tool)",
    ]);
    expect(await page.locator('.economy-agents-more').textContent()).toBe('and 3 more agent sessions');
    expect(await page.locator('.economy-agents-title').textContent()).toBe('Agent sessions: 10 connected, 1 ended');
    expect(await page.locator('li.economy-agent.ended').count()).toBe(1);
    expect(await page.evaluate(() => document.querySelectorAll('section.economy img').length)).toBe(0);
    // Nothing wider than the side panel's 400 px.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
  });
});
