// The bridge's security rules, as functions and over real HTTP on 127.0.0.1 port 0.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BridgeHttpServer } from '../../../src/proxy/bridge/httpBridgeServer.js';
import {
  allowedHostHeaders,
  assertBindAllowed,
  bearerToken,
  checkHostAndOrigin,
  generateToken,
  hostAllowed,
  isLoopbackHost,
  originAllowed,
  tokenEquals,
} from '../../../src/proxy/bridge/security.js';
import { Logger } from '../../../src/proxy/common/logger.js';
import {
  INITIALIZE,
  MCP_POST_HEADERS,
  rawRequest,
  startBridge,
  TestHandler,
  type Harness,
} from '../../helpers/httpBridgeHarness.js';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.server.close();
});

async function bridge(overrides: Parameters<typeof startBridge>[0] = {}): Promise<Harness> {
  const h = await startBridge(overrides);
  open.push(h);
  return h;
}

describe('security rules', () => {
  it('generateToken gives 32 random bytes as base64url', () => {
    const a = generateToken();
    const b = generateToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('tokenEquals matches only the exact token, whatever the lengths', () => {
    const t = generateToken();
    expect(tokenEquals(t, t)).toBe(true);
    expect(tokenEquals(t.slice(0, -1) + (t.endsWith('A') ? 'B' : 'A'), t)).toBe(false);
    expect(tokenEquals(t.slice(0, 10), t)).toBe(false);
    expect(tokenEquals(t + 'x', t)).toBe(false);
    expect(tokenEquals('', t)).toBe(false);
    // An empty expected token never authorizes anything.
    expect(tokenEquals('', '')).toBe(false);
  });

  it('bearerToken parses only the Bearer scheme', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it('recognises loopback hosts and refuses to bind elsewhere unless allowed', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.5', 'example.com', '128.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(false);
    expect(() => assertBindAllowed('127.0.0.1')).not.toThrow();
    expect(() => assertBindAllowed('0.0.0.0')).toThrow(/non-loopback/);
    expect(() => assertBindAllowed('192.168.1.5')).toThrow(/allowNonLoopback/);
    expect(() => assertBindAllowed('0.0.0.0', true)).not.toThrow();
  });

  it('accepts exactly the loopback Host spellings on the port, and a specific opted-in bind host', () => {
    const allowed = allowedHostHeaders(4000);
    for (const h of ['127.0.0.1:4000', 'localhost:4000', 'LOCALHOST:4000', '[::1]:4000'])
      expect(hostAllowed(h, allowed), h).toBe(true);
    for (const h of [
      '127.0.0.1',
      '127.0.0.1:4001',
      'evil.example:4000',
      'localhost.evil.example:4000',
      '',
      undefined,
    ]) {
      expect(hostAllowed(h, allowed), String(h)).toBe(false);
    }
    expect(hostAllowed('192.168.1.5:4000', allowedHostHeaders(4000, '192.168.1.5'))).toBe(true);
    expect(allowedHostHeaders(4000, '0.0.0.0').size).toBe(3);
  });

  it('accepts no Origin or the bridge own origin, refuses any other', () => {
    const allowed = allowedHostHeaders(4000);
    expect(originAllowed(undefined, allowed)).toBe(true);
    expect(originAllowed('http://127.0.0.1:4000', allowed)).toBe(true);
    expect(originAllowed('http://localhost:4000', allowed)).toBe(true);
    for (const o of ['http://evil.example', 'https://127.0.0.1:4000', 'http://127.0.0.1:4001', 'null', 'file://']) {
      expect(originAllowed(o, allowed), o).toBe(false);
    }
    expect(checkHostAndOrigin({ host: '127.0.0.1:4000', origin: 'http://evil.example' }, allowed)?.status).toBe(403);
    expect(checkHostAndOrigin({ host: 'evil.example:4000' }, allowed)?.status).toBe(403);
    expect(checkHostAndOrigin({ host: '127.0.0.1:4000' }, allowed)).toBeUndefined();
  });
});

describe('security over HTTP', () => {
  it('refuses to listen on a non-loopback host unless allowNonLoopback', async () => {
    const opts = {
      host: '0.0.0.0',
      port: 0,
      token: generateToken(),
      handler: new TestHandler(),
      status: () => ({}),
      subscribeStatus: () => () => {},
      logger: new Logger('t', { level: 'error', sinks: [] }),
    };
    await expect(new BridgeHttpServer(opts).listen()).rejects.toThrow(/non-loopback/);
    const allowed = new BridgeHttpServer({ ...opts, allowNonLoopback: true });
    const { port } = await allowed.listen();
    expect(port).toBeGreaterThan(0);
    await allowed.close();
  });

  it('answers 401 with WWW-Authenticate for a missing, wrong or URL-borne token', async () => {
    const h = await bridge();
    const wrongSameLength = generateToken();
    const cases: Record<string, string>[] = [
      {},
      { Authorization: `Bearer ${wrongSameLength}` },
      { Authorization: 'Bearer short' },
      { Authorization: `Basic ${h.token}` },
    ];
    for (const headers of cases) {
      for (const path of ['/health', '/status', '/events', '/mcp/alpha', '/sse/alpha']) {
        const res = await fetch(h.url + path, { headers });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
        await res.text();
      }
    }
    const post = await fetch(h.url + '/mcp/alpha', {
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: JSON.stringify(INITIALIZE),
    });
    expect(post.status).toBe(401);
    await post.text();
    // The token is never accepted in the URL (the panel uses fetch with the header).
    const query = await fetch(`${h.url}/status?token=${encodeURIComponent(h.token)}`);
    expect(query.status).toBe(401);
    await query.text();
    expect(h.handler.connected).toHaveLength(0);
    const ok = await fetch(h.url + '/health', { headers: h.auth });
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it('answers 403 for a Host that is not the bridge, and accepts each loopback spelling', async () => {
    const h = await bridge();
    for (const host of [
      'evil.example',
      `evil.example:${h.port}`,
      `127.0.0.1:${h.port + 1}`,
      `192.168.0.10:${h.port}`,
    ]) {
      const res = await rawRequest(h.port, { path: '/health', headers: { ...h.auth, Host: host } });
      expect(res.status, host).toBe(403);
    }
    for (const host of [`127.0.0.1:${h.port}`, `localhost:${h.port}`, `[::1]:${h.port}`]) {
      const res = await rawRequest(h.port, { path: '/health', headers: { ...h.auth, Host: host } });
      expect(res.status, host).toBe(200);
    }
    // The Host check comes before the token: a rebinding page learns nothing.
    const noToken = await rawRequest(h.port, { path: '/health', headers: { Host: 'evil.example' } });
    expect(noToken.status).toBe(403);
  });

  it('answers 403 for a foreign Origin, even with the token, and accepts its own', async () => {
    const h = await bridge();
    for (const origin of [
      'http://evil.example',
      'null',
      `http://127.0.0.1:${h.port + 1}`,
      `https://127.0.0.1:${h.port}`,
    ]) {
      const res = await rawRequest(h.port, {
        method: 'POST',
        path: '/mcp/alpha',
        headers: { ...h.auth, ...MCP_POST_HEADERS, Host: `127.0.0.1:${h.port}`, Origin: origin },
        body: JSON.stringify(INITIALIZE),
      });
      expect(res.status, origin).toBe(403);
    }
    expect(h.handler.connected).toHaveLength(0);
    const own = await rawRequest(h.port, {
      path: '/status',
      headers: { ...h.auth, Host: `localhost:${h.port}`, Origin: `http://localhost:${h.port}` },
    });
    expect(own.status).toBe(200);
  });

  it('applies the Host and Origin checks to the static page, which needs no token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-sec-static-'));
    try {
      writeFileSync(join(dir, 'index.html'), '<!doctype html>');
      const h = await bridge({ staticDir: dir });
      expect((await rawRequest(h.port, { path: '/', headers: { Host: `127.0.0.1:${h.port}` } })).status).toBe(200);
      expect((await rawRequest(h.port, { path: '/', headers: { Host: `evil.example:${h.port}` } })).status).toBe(403);
      expect(
        (
          await rawRequest(h.port, {
            path: '/',
            headers: { Host: `127.0.0.1:${h.port}`, Origin: 'http://evil.example' },
          })
        ).status,
      ).toBe(403);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
