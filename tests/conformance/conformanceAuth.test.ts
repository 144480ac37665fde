// The MCP conformance suite's client `auth/*` scenarios (0.1.16, spec 2025-11-25, and the
// two of 2025-03-26 servers: no protected resource metadata, under Node 22) against
// `convert`, driven by tests/conformance/oauthClient.mjs: every scenario must end with no
// failed check. Results: docs/CONFORMANCE-AUTH.md.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_BIN, tally, type Check } from '../helpers/conformance.js';
import { node22 } from '../helpers/nodeBinaries.js';
import { ensureBuilt } from '../helpers/proxyCli.js';
import { ROOT } from '../helpers/paths.js';

const out = mkdtempSync(join(tmpdir(), 'qiming-conformance-auth-'));
beforeAll(() => ensureBuilt());
afterAll(() => rmSync(out, { recursive: true, force: true }));

function runSuite(extra: string[], env: Record<string, string> = {}): Promise<void> {
  const client = `${process.execPath} ${join(ROOT, 'tests', 'conformance', 'oauthClient.mjs')}`;
  return new Promise((resolve, reject) => {
    execFile(
      node22(),
      [CONFORMANCE_BIN, 'client', '--command', client, ...extra, '-o', out],
      { timeout: 240_000, maxBuffer: 64 << 20, env: { ...process.env, ...env } },
      (err) =>
        // Exit 1 means "some check failed"; the checks say which. A kill (timeout) or a crash is an error.
        err && (err.killed || typeof err.code !== 'number' || err.code > 1) ? reject(err) : resolve(),
    );
  });
}

/** scenario -> its checks, from every run so far (the newest run of a scenario wins). */
function results(): Map<string, Check[]> {
  const found = new Map<string, Check[]>();
  const dirs = readdirSync(join(out, 'auth')).sort(
    (a, b) => statSync(join(out, 'auth', a)).mtimeMs - statSync(join(out, 'auth', b)).mtimeMs,
  );
  for (const d of dirs)
    found.set(
      d.replace(/-\d{4}-\d\d-\d\dT.*$/, ''),
      JSON.parse(readFileSync(join(out, 'auth', d, 'checks.json'), 'utf8')) as Check[],
    );
  return found;
}

describe('conformance: client auth scenarios against convert', () => {
  it('passes every 2025-11-25 auth scenario, CIMD included when a metadata document URL is configured', async () => {
    await runSuite(['--suite', 'auth', '--spec-version', '2025-11-25']);
    const suite = results();
    expect(suite.size).toBeGreaterThanOrEqual(14);
    for (const [name, checks] of suite)
      expect({ name, failed: checks.filter((c) => c.status === 'FAILURE').map((c) => c.id) }).toEqual({
        name,
        failed: [],
      });
    // Without a clientMetadataUrl we register dynamically: the suite's one warning.
    expect(
      suite
        .get('basic-cimd')!
        .filter((c) => c.status === 'WARNING')
        .map((c) => c.id),
    ).toEqual(['cimd-client-id-used']);
    await runSuite(['--scenario', 'auth/basic-cimd'], {
      CONFORMANCE_CIMD_URL: 'https://conformance-test.local/client-metadata.json',
    });
    expect(tally(results().get('basic-cimd')!)).toMatchObject({ failed: 0, warnings: 0 });
  }, 300_000);

  it('signs in to 2025-03-26 servers: metadata at the origin naming its own issuer, or none and the default endpoints', async () => {
    await runSuite(['--suite', 'backcompat']);
    const suite = results();
    for (const name of ['2025-03-26-oauth-metadata-backcompat', '2025-03-26-oauth-endpoint-fallback']) {
      const checks = suite.get(name);
      expect(checks, name).toBeDefined();
      expect({ name, failed: checks!.filter((c) => c.status === 'FAILURE').map((c) => c.id) }).toEqual({
        name,
        failed: [],
      });
      // The whole flow ran: a token was obtained and the MCP server took it.
      for (const id of ['client-registration', 'token-request', 'valid-bearer-token'])
        expect(
          checks!.some((c) => c.id === id && c.status === 'SUCCESS'),
          `${name}: ${id}`,
        ).toBe(true);
    }
  }, 300_000);
});
