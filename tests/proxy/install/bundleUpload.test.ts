// A bundle sent to the bridge as the raw body of POST /install/bundle: a 12 MiB one (random,
// so incompressible, data inside) is planned, made again with values, installed with its file
// whole, and uninstalled; one over the installer's limit is refused 413 with a clear message,
// whether its length is declared or it comes chunked; the token, Origin and body-type rules hold.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBridges, panelRequest, startBridge, tempDir, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { BUNDLED_PACKAGE_JSON, BUNDLED_SERVER, buildZip, greeterManifest } from '../../fixtures/registry/bundles.js';
import { MAX_BUNDLE_BYTES } from '../../../src/shared/install.js';

const MIB = 1024 * 1024;
let bridge: BridgeProcess;
let file: string;
let dataDir: string;

/** One raw request: `body` written in `chunks` pieces (none: one write with its Content-Length). */
function upload(
  body: Buffer,
  o: { headers?: Record<string, string | undefined>; chunked?: boolean; path?: string } = {},
): Promise<{ status: number; json: Record<string, any> }> {
  const headers: Record<string, string> = {
    Host: `127.0.0.1:${bridge.port}`,
    Authorization: `Bearer ${bridge.bearer}`,
    Origin: `http://127.0.0.1:${bridge.port}`,
    'Content-Type': 'application/octet-stream',
    ...(o.chunked ? {} : { 'Content-Length': String(body.length) }),
  };
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: bridge.port,
        method: 'POST',
        path: o.path ?? '/install/bundle?fileName=big.mcpb',
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      },
    );
    req.on('error', reject);
    if (o.chunked) {
      // 1 MiB pieces: the bridge must stop at its limit without waiting for the rest.
      for (let i = 0; i < body.length; i += MIB) req.write(body.subarray(i, i + MIB));
      req.end();
    } else req.end(body);
  });
}

beforeAll(async () => {
  const dir = tempDir('bundle-upload-');
  file = join(dir, 'mcp.json');
  dataDir = join(dir, 'data');
  writeFileSync(file, JSON.stringify({ mcpServers: {} }));
  bridge = await startBridge({ config: file, env: { QIMING_DATA_DIR: dataDir } });
}, 40_000);

afterAll(async () => {
  await cleanupBridges();
}, 30_000);

describe('a bundle as the raw body of POST /install/bundle', () => {
  it('a 12 MiB bundle of incompressible data is planned, installed whole, and uninstalled', async () => {
    const blob = randomBytes(12 * MIB);
    const bundle = await buildZip([
      { name: 'manifest.json', data: JSON.stringify(greeterManifest({ name: 'big-greeter' })) },
      { name: 'package.json', data: BUNDLED_PACKAGE_JSON },
      { name: 'server/index.js', data: BUNDLED_SERVER },
      { name: 'data/blob.bin', data: blob },
    ]);
    // Over what base64 inside a 10 MiB JSON body could carry.
    expect(bundle.length).toBeGreaterThan(12 * MIB);
    const r = await upload(bundle);
    expect(r.status).toBe(200);
    const plan = r.json.plan;
    expect(plan.source).toEqual({ kind: 'bundle', file: 'big.mcpb' });
    expect(plan.sha256).toBe(createHash('sha256').update(bundle).digest('hex'));
    expect(plan.missing).toEqual(['API token']);

    // Values make the plan again from the kept bundle: it is not sent twice.
    const again = await panelRequest(bridge, 'POST', '/install/plan', { from: plan.planId, values: { token: 't-1' } });
    expect(again.status).toBe(200);
    const second = JSON.parse(again.body).plan;
    expect(second.missing).toEqual([]);
    expect(second.planId).not.toBe(plan.planId);
    const stale = await panelRequest(bridge, 'POST', '/install/confirm', { planId: plan.planId });
    expect(stale.status).toBe(404);

    const done = await panelRequest(bridge, 'POST', '/install/confirm', { planId: second.planId });
    expect(JSON.parse(done.body)).toEqual(expect.objectContaining({ ok: true, serverId: 'big-greeter' }));
    const unpacked = join(dataDir, 'bundles', 'big-greeter', 'data', 'blob.bin');
    expect(statSync(unpacked).size).toBe(blob.length);
    expect(createHash('sha256').update(readFileSync(unpacked)).digest('hex')).toBe(
      createHash('sha256').update(blob).digest('hex'),
    );
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers['big-greeter']).toBeDefined();

    const gone = await panelRequest(bridge, 'POST', '/install/uninstall', { id: 'big-greeter' });
    expect(gone.status).toBe(200);
    expect(existsSync(join(dataDir, 'bundles', 'big-greeter'))).toBe(false);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers['big-greeter']).toBeUndefined();
  }, 60_000);

  it('a body over the limit is refused 413 with the limit named, declared or chunked', async () => {
    const over = Buffer.alloc(MAX_BUNDLE_BYTES + 1);
    const message =
      /^the bundle is refused: it is over 64 MiB \(67108864 bytes\), the largest \.mcpb the installer takes$/;
    const declared = await upload(over);
    expect(declared.status).toBe(413);
    expect(declared.json.error).toMatch(message);
    const chunked = await upload(over, { chunked: true });
    expect(chunked.status).toBe(413);
    expect(chunked.json.error).toMatch(message);
    // The bridge still answers.
    expect((await panelRequest(bridge, 'GET', '/install/installed')).status).toBe(200);
  }, 60_000);

  it('keeps the token, Origin and body-type rules; refuses what is not a bundle', async () => {
    const small = Buffer.from('not a zip');
    expect((await upload(small, { headers: { Authorization: undefined } })).status).toBe(401);
    const noOrigin = await upload(small, { headers: { Origin: undefined } });
    expect(noOrigin.status).toBe(403);
    const form = await upload(small, { headers: { 'Content-Type': 'text/plain' } });
    expect(form.status).toBe(415);
    expect(form.json.error).toMatch(/application\/octet-stream or application\/zip/);
    const zipType = await upload(small, { headers: { 'Content-Type': 'application/zip' } });
    expect(zipType.status).toBe(400);
    expect(zipType.json.error).toMatch(/^not a valid bundle \(zip\)/);
    const other = await upload(small, { headers: { Origin: 'http://evil.example' } });
    expect(other.status).toBe(403);
  });
});
