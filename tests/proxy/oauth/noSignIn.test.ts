// Servers that do not do OAuth are never asked to sign in: no Bearer challenge, no 401, or
// a Bearer 401 with neither OAuth metadata nor the default authorization endpoint.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { LeanHttpClientTransport } from '../../../src/proxy/upstream/leanHttpClientTransport.js';
import { parseBearerChallenge, unionScopes } from '../../../src/proxy/oauth/challenge.js';
import { fixtureAuth, INIT_PARAMS, memoryLogger, tempOAuthDir } from './oauthKit.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server answering every request with `status` (and this WWW-Authenticate), counting paths. */
async function plainServer(status: number, challenge?: string): Promise<{ url: string; paths: string[] }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    req.resume();
    req.on('end', () => {
      if (status !== 200) {
        res.writeHead(status, challenge ? { 'WWW-Authenticate': challenge } : {});
        return res.end();
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'plain', version: '1' } },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`, paths };
}

async function initOnce(url: string, opener: () => Promise<boolean>) {
  const tmp = tempOAuthDir();
  cleanups.push(tmp.remove);
  const { logger } = memoryLogger();
  const auth = fixtureAuth({ url } as never, tmp.dir, logger, { opener });
  const t = new LeanHttpClientTransport(new URL(url), { auth });
  cleanups.push(() => t.close());
  const got: unknown[] = [];
  t.onmessage = (m) => got.push(m);
  await t.start();
  const sent = t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS } as never);
  return { sent, got, auth };
}

describe('no sign-in where the server does not ask for one', () => {
  it('a server that never answers 401 gets no discovery and no browser', async () => {
    const s = await plainServer(200);
    let opened = 0;
    const { sent, got } = await initOnce(s.url, async () => (opened++, true));
    await sent;
    expect(got).toHaveLength(1);
    expect(s.paths).toEqual(['/mcp']);
    expect(opened).toBe(0);
  });

  it('a 401 without a Bearer challenge stays a plain HTTP 401 (no discovery, no browser)', async () => {
    const s = await plainServer(401, 'Basic realm="x"');
    let opened = 0;
    const { sent, auth } = await initOnce(s.url, async () => (opened++, true));
    await expect(sent).rejects.toThrow(/HTTP 401 Unauthorized/);
    expect(s.paths).toEqual(['/mcp']);
    expect(opened).toBe(0);
    expect(auth.state).toBe('signed-out');
  });

  it('a Bearer 401 from a server with no OAuth metadata and no /authorize stays a plain 401 (no registration, no browser)', async () => {
    const s = await plainServer(401, 'Bearer realm="api"');
    let opened = 0;
    const { sent, auth } = await initOnce(s.url, async () => (opened++, true));
    await expect(sent).rejects.toThrow(/HTTP 401 Unauthorized/);
    expect(s.paths).toContain('/authorize');
    expect(s.paths).not.toContain('/register');
    expect(opened).toBe(0);
    expect(auth.state).toBe('signed-out');
  });
});

describe('WWW-Authenticate', () => {
  it('reads the Bearer challenge among others', () => {
    expect(
      parseBearerChallenge(
        'Basic realm="a", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/r"',
      ),
    ).toEqual({
      error: 'insufficient_scope',
      scope: 'a b',
      resourceMetadata: 'https://x/.well-known/r',
    });
    expect(parseBearerChallenge('Bearer')).toEqual({});
    expect(parseBearerChallenge('Basic realm="Bearer"')).toBeUndefined();
    expect(parseBearerChallenge(undefined)).toBeUndefined();
  });
  it('joins scopes without duplicates', () => {
    expect(unionScopes('mcp read', 'read admin')).toBe('mcp read admin');
    expect(unionScopes(undefined, '')).toBeUndefined();
  });
});
