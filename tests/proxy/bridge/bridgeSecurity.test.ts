// Security of the real bridge: the bearer token on every route (401), the Host and Origin
// checks (403), the body cap (413), where the token comes from (--token-file,
// MCP_BRIDGE_TOKEN, random), loopback-only binding, and the token kept out of the log file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanupBridges,
  fixture,
  initializeBody,
  MCP_POST_HEADERS,
  nodeEntry,
  rawRequest,
  spawnBridge,
  startBridge,
  tempDir,
} from '../../helpers/bridgeProcess.js';

afterEach(cleanupBridges);

const NO_SERVERS = { mcpServers: {} };
const ONE_SERVER = { mcpServers: { s: nodeEntry(fixture('slowStartServer.mjs')) } };

describe('bridge security', () => {
  it('requires the bearer token on every route (401), then checks Host (403) and Origin (403)', async () => {
    const secret = 'sk-live-do-not-leak-0123456789';
    const b = await startBridge({
      config: { mcpServers: { s: nodeEntry(fixture('slowStartServer.mjs'), [], { env: { API_KEY: secret } }) } },
    });
    const pid = (await b.server('s')).pid;
    const routes: [string, string][] = [
      ['GET', '/health'],
      ['GET', '/status'],
      ['GET', '/events'],
      ['POST', '/mcp/s'],
      ['POST', '/mcp'],
      ['GET', '/sse/s'],
      ['POST', '/messages/s?sessionId=x'],
      ['POST', '/servers/s/restart'],
    ];
    const host = `127.0.0.1:${b.port}`;
    const bad = [
      undefined,
      'Bearer wrong-token-wrong-token',
      `Basic ${b.bearer}`,
      `Bearer ${b.bearer.toUpperCase()}`,
      `Bearer ${b.bearer}x`,
    ];
    for (const [method, path] of routes) {
      for (const authorization of bad) {
        const headers: Record<string, string> = {
          Host: host,
          ...MCP_POST_HEADERS,
          ...(authorization ? { Authorization: authorization } : {}),
        };
        const res = await rawRequest(b.port, {
          method,
          path,
          headers,
          body: method === 'POST' ? initializeBody() : undefined,
        });
        expect(res.status, `${method} ${path} with ${authorization ?? 'no token'}`).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer realm=/);
      }
    }
    // Nothing happened behind the refusals.
    expect(await b.server('s')).toMatchObject({ pid, restarts: 0, sessions: 0 });

    const ok = (headers: Record<string, string>) =>
      rawRequest(b.port, { path: '/health', headers: { ...b.auth, ...headers } });
    expect((await ok({ Host: host })).status).toBe(200);
    expect((await ok({ Host: `localhost:${b.port}` })).status).toBe(200);
    for (const evil of [
      'evil.example',
      `evil.example:${b.port}`,
      `127.0.0.1:${b.port + 1}`,
      '127.0.0.1',
      `attacker.127.0.0.1.nip.io:${b.port}`,
    ]) {
      const res = await ok({ Host: evil });
      expect(res.status, `Host ${evil}`).toBe(403);
      expect(res.body).toMatch(/Host header/);
    }
    expect((await ok({ Host: host, Origin: `http://127.0.0.1:${b.port}` })).status).toBe(200);
    for (const origin of [
      'http://evil.example',
      'null',
      `https://127.0.0.1:${b.port}`,
      `http://localhost:${b.port + 1}`,
    ]) {
      const res = await ok({ Host: host, Origin: origin });
      expect(res.status, `Origin ${origin}`).toBe(403);
    }
    // A cross-origin MCP request is refused before it can open a session.
    const cross = await rawRequest(b.port, {
      method: 'POST',
      path: '/mcp/s',
      headers: { ...b.auth, ...MCP_POST_HEADERS, Host: host, Origin: 'http://evil.example' },
      body: initializeBody(),
    });
    expect(cross.status).toBe(403);
    expect((await b.server('s')).sessions).toBe(0);

    // The server's env never shows: not in /status, /events, the ready line or the logs.
    expect(JSON.stringify(await b.status())).not.toContain(secret);
    expect(JSON.stringify(b.history)).not.toContain(secret);
    expect(b.stdout + b.stderr).not.toContain(secret);

    // The SDK client without the token cannot connect.
    const bare = await fetch(`${b.url}/mcp/s`, { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
    expect(bare.status).toBe(401);
  });

  it('refuses a body over the default 10 MiB cap with 413', async () => {
    const b = await startBridge({ config: ONE_SERVER });
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { pad: 'x'.repeat(10 * 1024 * 1024) },
    });
    const res = await b.fetch('/mcp/s', { method: 'POST', headers: MCP_POST_HEADERS, body: big });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { message: expect.stringMatching(/10485760 bytes/) },
    });
    // Streamed without a declared length: noticed while reading, same answer.
    const chunks = [big.slice(0, 6 * 1024 * 1024), big.slice(6 * 1024 * 1024)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const streamed = await b.fetch('/mcp/s', {
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    await streamed.body?.cancel();
    expect((await b.server('s')).sessions).toBe(0);
    // The bridge is fine afterwards.
    const { client } = await b.client('/mcp/s');
    expect((await client.listTools()).tools).toHaveLength(4);
  });

  it('--max-message-bytes sets the cap: just under passes, just over is 413', async () => {
    const b = await startBridge({ config: ONE_SERVER, args: ['--max-message-bytes', '4096'] });
    const body = (size: number) => {
      const base = JSON.parse(initializeBody()) as { params: Record<string, unknown> };
      const pad = size - JSON.stringify({ ...base, params: { ...base.params, pad: '' } }).length;
      return JSON.stringify({ ...base, params: { ...base.params, pad: 'x'.repeat(pad) } });
    };
    expect(Buffer.byteLength(body(4096))).toBe(4096);
    expect((await b.fetch('/mcp/s', { method: 'POST', headers: MCP_POST_HEADERS, body: body(4097) })).status).toBe(413);
    const under = await b.fetch('/mcp/s', { method: 'POST', headers: MCP_POST_HEADERS, body: body(4096) });
    expect(under.status).toBe(200);
    expect(under.headers.get('mcp-session-id')).toBeTruthy();
    await under.body?.cancel();
  });

  it('takes its token from --token-file (before MCP_BRIDGE_TOKEN), and refuses a bad one', async () => {
    const dir = tempDir();
    const file = join(dir, 'token');
    writeFileSync(file, 'file-token-0123456789-abcdef\n');
    const b = await startBridge({
      config: NO_SERVERS,
      token: 'env-token-0123456789-abcdef',
      args: ['--token-file', file],
    });
    expect(b.ready!.token).toBe('file-token-0123456789-abcdef');
    const withFile = await rawRequest(b.port, {
      path: '/health',
      headers: { Host: `127.0.0.1:${b.port}`, Authorization: 'Bearer file-token-0123456789-abcdef' },
    });
    expect(withFile.status).toBe(200);
    const withEnv = await rawRequest(b.port, {
      path: '/health',
      headers: { Host: `127.0.0.1:${b.port}`, Authorization: 'Bearer env-token-0123456789-abcdef' },
    });
    expect(withEnv.status).toBe(401);

    writeFileSync(join(dir, 'short'), 'short');
    for (const [path, message] of [
      [join(dir, 'missing'), /cannot read --token-file .*missing: ENOENT/],
      [join(dir, 'short'), /too short/],
    ] as const) {
      const bad = spawnBridge({ config: NO_SERVERS, args: ['--token-file', path] });
      expect((await bad.waitExit(10_000)).code).toBe(2);
      expect(bad.stderr).toMatch(message);
      expect(bad.stdout).toBe('');
    }
  });

  it('takes its token from MCP_BRIDGE_TOKEN, refuses a short one, and otherwise makes a random one per launch', async () => {
    const b = await startBridge({ config: NO_SERVERS, token: 'env-token-0123456789-abcdef' });
    expect(b.ready!.token).toBe('env-token-0123456789-abcdef');
    expect((await b.fetch('/health')).status).toBe(200);

    const short = spawnBridge({ config: NO_SERVERS, token: 'too-short' });
    expect((await short.waitExit(10_000)).code).toBe(2);
    expect(short.stderr).toMatch(/MCP_BRIDGE_TOKEN is too short/);
    expect(short.stdout).toBe('');

    const [r1, r2] = await Promise.all([
      startBridge({ config: NO_SERVERS, token: null }),
      startBridge({ config: NO_SERVERS, token: null }),
    ]);
    for (const r of [r1, r2]) {
      expect(r.ready!.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await r.fetch('/health')).status).toBe(200);
    }
    expect(r1.ready!.token).not.toBe(r2.ready!.token);
    expect(
      (
        await rawRequest(r1.port, {
          path: '/health',
          headers: { Host: `127.0.0.1:${r1.port}`, Authorization: `Bearer ${r2.ready!.token}` },
        })
      ).status,
    ).toBe(401);
  });

  it('refuses a non-loopback host unless explicitly allowed, and keeps the token out of the log file', async () => {
    const refused = spawnBridge({ config: NO_SERVERS, args: ['--host', '0.0.0.0'] });
    expect((await refused.waitExit(10_000)).code).toBe(2);
    expect(refused.stderr).toMatch(
      /refusing to serve on non-loopback host 0\.0\.0\.0.*--dangerously-allow-non-loopback/,
    );
    expect(refused.stdout).toBe('');

    const logFile = join(tempDir(), 'proxy.log');
    const b = await startBridge({
      config: ONE_SERVER,
      env: { MCP_PROXY_LOG_FILE: logFile, MCP_PROXY_LOG_LEVEL: 'debug' },
    });
    expect(b.url).toBe(`http://127.0.0.1:${b.port}`);
    await rawRequest(b.port, {
      path: '/status',
      headers: { Host: `127.0.0.1:${b.port}`, Authorization: 'Bearer a-wrong-token-that-is-long' },
    });
    await rawRequest(b.port, {
      path: '/status',
      headers: { Host: 'evil.example', Authorization: `Bearer ${b.bearer}` },
    });
    const { client } = await b.client('/mcp/s');
    await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    b.child.kill('SIGTERM');
    await b.waitExit(10_000);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toMatch(/\[bridge\] ready/);
    expect(log).not.toContain(b.bearer);
    expect(log).not.toContain('a-wrong-token-that-is-long');
  });
});
