// A pasted snippet that reads stored secrets it does not bring (`${secret:NAME}` anywhere in an
// entry), through the real bridge's config routes over real HTTP: the preview names each secret
// with the entry of the snippet that reads it and the servers of the config it is kept for; the
// import is refused (nothing written, nothing stored) until the change says yes to every one of
// those names, and then written as previewed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBridges, panelRequest, startBridge, tempDir, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import type { ImportPreview } from '../../../src/shared/configContract.js';

let bridge: BridgeProcess;
let file: string;
const CONFIG = {
  mcpServers: {
    gh: { command: 'node', args: ['gh.js'], env: { GITHUB_TOKEN: '${secret:gh/env/GITHUB_TOKEN}' }, disabled: true },
    legacy: { command: 'node', args: ['legacy.js'], env: { API_KEY: '${secret:legacy.API_KEY}' }, disabled: true },
  },
};
const SNIPPET = JSON.stringify({
  mcpServers: {
    helper: { command: 'node', args: ['helper.js', '--token=${secret:gh/env/GITHUB_TOKEN}'], disabled: true },
    other: {
      url: 'https://mcp.example.com/mcp',
      headers: { 'X-Key': '${secret:legacy.API_KEY}', 'X-Own': '${secret:nobody.uses.this}' },
      disabled: true,
    },
    clean: { command: 'node', args: ['clean.js'], disabled: true },
  },
});

beforeAll(async () => {
  const dir = tempDir('import-secret-refs-');
  file = join(dir, 'mcp.json');
  writeFileSync(file, `${JSON.stringify(CONFIG, null, 2)}\n`, { mode: 0o600 });
  bridge = await startBridge({ config: undefined, args: ['--config-file', file] });
}, 40_000);

afterAll(async () => {
  await cleanupBridges();
}, 30_000);

const post = (path: string, body: unknown) => panelRequest(bridge, 'POST', path, body);

describe('import preview: stored secrets a snippet reads without bringing them (real bridge, real HTTP)', () => {
  it('names each secret, the entry of the snippet that reads it and the servers it is kept for', async () => {
    const r = await post('/config/import/preview', { text: SNIPPET });
    expect(r.status, r.body).toBe(200);
    const preview = JSON.parse(r.body) as ImportPreview;
    expect(preview.add.map((a) => [a.id, a.secretRefs])).toEqual([
      ['helper', [{ name: 'gh/env/GITHUB_TOKEN', owners: ['gh'] }]],
      [
        'other',
        [
          { name: 'legacy.API_KEY', owners: ['legacy'] },
          { name: 'nobody.uses.this', owners: [] },
        ],
      ],
      ['clean', undefined],
    ]);
  });

  it('refuses the import until each of those names is said yes to; nothing is written meanwhile', async () => {
    const before = readFileSync(file, 'utf8');
    const none = await post('/config/import', { text: SNIPPET });
    expect(none.status, none.body).toBe(400);
    const error = (JSON.parse(none.body) as { error: string }).error;
    expect(error).toContain('"helper" reads the stored secret gh/env/GITHUB_TOKEN (kept for "gh")');
    expect(error).toContain('"other" reads the stored secret legacy.API_KEY (kept for "legacy")');
    expect(error).toContain('"other" reads the stored secret nobody.uses.this (which no server of the config uses)');
    expect(readFileSync(file, 'utf8')).toBe(before);

    // Asking to move its plain secrets to the store changes nothing: refused before anything is stored.
    const stored = await post('/config/import', { text: SNIPPET, secrets: 'store' });
    expect(stored.status, stored.body).toBe(400);
    expect((JSON.parse(stored.body) as { error: string }).error).toContain('reads the stored secret');

    const some = await post('/config/import', {
      text: SNIPPET,
      allowSecretRefs: ['gh/env/GITHUB_TOKEN', 'legacy.API_KEY'],
    });
    expect(some.status, some.body).toBe(400);
    const rest = (JSON.parse(some.body) as { error: string }).error;
    expect(rest).toContain('nobody.uses.this');
    expect(rest).not.toContain('gh/env/GITHUB_TOKEN');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('imports as previewed once every name is said yes to', async () => {
    const r = await post('/config/import', {
      text: SNIPPET,
      allowSecretRefs: ['gh/env/GITHUB_TOKEN', 'legacy.API_KEY', 'nobody.uses.this'],
    });
    expect(r.status, r.body).toBe(200);
    const written = JSON.parse(readFileSync(file, 'utf8')) as {
      mcpServers: Record<string, { args?: string[]; headers?: Record<string, string> }>;
    };
    expect(Object.keys(written.mcpServers)).toEqual(['gh', 'legacy', 'helper', 'other', 'clean']);
    expect(written.mcpServers.helper.args).toEqual(['helper.js', '--token=${secret:gh/env/GITHUB_TOKEN}']);
    expect(written.mcpServers.other.headers).toEqual({
      'X-Key': '${secret:legacy.API_KEY}',
      'X-Own': '${secret:nobody.uses.this}',
    });
  });
});
