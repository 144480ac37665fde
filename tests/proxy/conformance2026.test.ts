// The MCP conformance suite 0.2.0-alpha.12, `--requirements 2026-07-28` (issue 18 point 4),
// run direct against the SDK v2 fixture over HTTP and through the bridge in front of that
// fixture (stdio), in front of a 2025-11-25 server and on the aggregated route. Every check
// that passes direct must pass through the bridge in front of the same server. The table it
// prints is the one recorded in docs/CONFORMANCE-2026.md. Skipped without Node 22.
import { describe, expect, it } from 'vitest';
import { afterEach } from 'vitest';
import { authForwarder, byScenario, runConformance, type Checks } from '../helpers/conformance2026.js';
import { cleanupBridges, nodeEntry, startBridge } from '../helpers/bridgeProcess.js';
import { modernEntry, startModernHttp } from '../helpers/modernFixture.js';
import { FIXTURES } from '../helpers/paths.js';
import { join } from 'node:path';

afterEach(cleanupBridges);

const passed = (c: Checks) => [...c].filter(([, v]) => v === 'SUCCESS').map(([k]) => k);

describe('conformance 2026-07-28 (0.2.0-alpha.12)', () => {
  it('passes through the bridge every check the 2026 server passes direct', async () => {
    const direct = await startModernHttp('m');
    const d = await runConformance(direct.url).finally(() => direct.stop());
    const b = await startBridge({ config: { mcpServers: { m: modernEntry('m'), old: nodeEntry(join(FIXTURES, 'mcpFixtureServer.mjs'), ['--name', 'old']) } } });
    const fw = await authForwarder(b.url, b.auth);
    const runs: [string, Checks][] = [['direct', d]];
    try {
      for (const path of ['/mcp/m', '/mcp', '/mcp/old']) runs.push([`bridge ${path}`, await runConformance(fw.url + path)]);
    } finally {
      await fw.close();
    }
    const tables = runs.map(([, c]) => byScenario(c));
    const rows = [...tables[0]!.keys()].map((s) => `| ${s} | ${tables.map((t) => t.get(s)?.join('/') ?? '-').join(' | ')} |`);
    const totals = runs.map(([, c]) => `${passed(c).length}/${c.size}`).join(' | ');
    console.log(
      [`| scenario | ${runs.map(([n]) => n).join(' | ')} |`, `|---|${runs.map(() => '---').join('|')}|`, ...rows, `| **checks passed** | ${totals} |`].join(
        '\n',
      ),
    );
    const m = runs[1]![1];
    const lost = passed(d).filter((k) => m.get(k) !== 'SUCCESS');
    console.log('passed direct, not through /mcp/m:', lost);
    expect(passed(d).length).toBeGreaterThan(50);
    expect(lost).toEqual([]);
  }, 400_000);
});
