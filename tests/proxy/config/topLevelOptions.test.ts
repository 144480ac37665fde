// The table of top-level options is what the config does: docs/cli.md's "Top level" lists
// exactly its options, in its order, with its defaults; parseConfig checks and carries each as
// its row says; a reload takes a change of each as its row says (live, by restarting the
// servers, or not at all); and the app sends to its bridge and hands to its agents exactly the
// options marked so.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/proxy/config/config.js';
import { diffConfigs, isEmptyDiff } from '../../../src/proxy/config/configDiff.js';
import { TOP_LEVEL_OPTIONS, type TopLevelOption } from '../../../src/proxy/config/topLevelOptions.js';
import { viewOf } from '../../../src/main/config/userConfig.js';
import { ROOT } from '../../helpers/paths.js';

const ROWS = Object.entries(TOP_LEVEL_OPTIONS) as [
  TopLevelOption,
  (typeof TOP_LEVEL_OPTIONS)[TopLevelOption] & { default: unknown },
][];

/** A valid value other than the default, for each option (a new option needs one here). */
const SAMPLE: Record<TopLevelOption, unknown> = {
  toolNaming: 'original',
  readyTimeoutMs: 5000,
  toolTimeouts: { 'slow*': 1000 },
  clientCapabilities: { sampling: true },
  apps: false,
  toolExposure: 'search',
  toolBudgetTokens: 5000,
  maxResultBytes: 4096,
  pinning: 'warn',
  activity: 'file',
  approval: 'ask',
  approvalHints: 'spec',
  approvalTimeoutMs: 5000,
  sandbox: true,
  tracing: { endpoint: 'http://127.0.0.1:4318' },
};

const base = { mcpServers: { a: { command: 'node', args: ['a.js'] }, b: { url: 'http://127.0.0.1:1/mcp' } } };
const parse = (raw: unknown) => parseConfig(raw, { env: {} });

/** The rows of the table under "### Top level" in docs/cli.md: name and default cell, backticks dropped. */
function documentedOptions(): { name: string; defaultCell: string }[] {
  const text = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
  const start = text.indexOf('\n### Top level\n');
  expect(start, 'docs/cli.md has a "### Top level" section').toBeGreaterThan(0);
  const section = text.slice(start + 1, text.indexOf('\n#', start + 2));
  return [...section.matchAll(/^\| `([A-Za-z.]+)` \| (.*?) \|/gm)]
    .map((m) => ({ name: m[1]!, defaultCell: m[2]!.replace(/`/g, '') }))
    .filter((r) => r.name !== 'mcpServers');
}

describe('the table of top-level options', () => {
  it("is docs/cli.md's table: the same options in the same order, with the same defaults", () => {
    const documented = documentedOptions();
    expect(documented.map((r) => r.name)).toEqual(ROWS.map(([name]) => name));
    for (const [name, row] of ROWS) {
      const cell = documented.find((r) => r.name === name)!.defaultCell;
      const expected = row.default === undefined ? 'unset' : JSON.stringify(row.default);
      expect(cell.startsWith(expected), `docs/cli.md's default of ${name} ("${cell}") starts with ${expected}`).toBe(
        true,
      );
    }
  });

  it('checks every option with a schema: a wrong value is a top-level problem naming it', () => {
    for (const [name] of ROWS.filter(([, r]) => r.schema !== undefined)) {
      let issues: string[] = [];
      try {
        parse({ ...base, [name]: [[1]] });
      } catch (err) {
        if (err instanceof ConfigError) issues = err.issues;
      }
      expect(issues, name).toHaveLength(1);
      expect(issues[0], name).toMatch(new RegExp(`^${name} must be `));
    }
  });

  it('carries each option into the parsed config as its row says, a default spelt out as no setting', () => {
    const unset = parse(base) as unknown as Record<string, unknown>;
    for (const [name, row] of ROWS) {
      const set = parse({ ...base, [name]: SAMPLE[name] }) as unknown as Record<string, unknown>;
      if (row.carried === 'config') {
        expect(unset[name], name).toEqual(row.default);
        expect(set[name], name).toEqual(SAMPLE[name]);
      } else if (row.carried === 'set') {
        expect(name in unset, name).toBe(false);
        expect(set[name], name).toEqual(SAMPLE[name]);
      } else if (row.carried === 'approval') {
        expect(unset.approval, name).toBeUndefined();
        expect(set.approval, name).toBeDefined();
      } else {
        expect(name in set, name).toBe(false);
        expect(set.servers, name).not.toEqual(unset.servers);
      }
      if ((row.carried === 'config' || row.carried === 'set') && row.default !== undefined)
        expect(isEmptyDiff(diffConfigs(parse(base), parse({ ...base, [name]: row.default }))), name).toBe(true);
    }
  });

  it('takes a change in a reload as its row says: live, by restarting the servers, or at the next start', () => {
    for (const [name, row] of ROWS) {
      const d = diffConfigs(parse(base), parse({ ...base, [name]: SAMPLE[name] }));
      if (row.reload === 'live') {
        expect(Object.keys(d.options), name).toEqual([row.carried === 'approval' ? 'approval' : name]);
        expect(d.changed, name).toEqual([]);
      } else if (row.reload === 'servers') {
        expect(d.options, name).toEqual({});
        // A sandbox is for stdio servers only.
        expect(
          d.changed.map((s) => s.id),
          name,
        ).toEqual(name === 'sandbox' ? ['a'] : ['a', 'b']);
      } else {
        expect(isEmptyDiff(d), name).toBe(true);
      }
    }
  });

  it("is what the app sends to its bridge and hands to its agents' proxies", () => {
    const before = viewOf(base);
    for (const [name, row] of ROWS) {
      const view = viewOf({ ...base, [name]: SAMPLE[name] });
      expect(view.bridgeSignature !== before.bridgeSignature, `${name} reaches the bridge`).toBe(
        row.app.includes('bridge'),
      );
      expect(view.exposure.options[name], `${name} reaches the agents`).toEqual(
        row.app.includes('agents') ? SAMPLE[name] : undefined,
      );
    }
  });
});
