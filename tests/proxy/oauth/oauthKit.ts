// Shared pieces of the sign-in tests: the fixture, a ServerAuth with the fixture browser,
// a temp token folder, and a lean streamable HTTP transport that speaks through the sign-in.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '../../../src/proxy/common/logger.js';
import { LeanHttpClientTransport } from '../../../src/proxy/upstream/leanHttpClientTransport.js';
import { OAuthStore } from '../../../src/proxy/oauth/oauthStore.js';
import { ServerAuth, type ServerAuthOptions } from '../../../src/proxy/oauth/serverAuth.js';
import { systemOpener } from '../../../src/proxy/oauth/browserOpener.js';
import { FIXTURES } from '../../helpers/paths.js';
import { startOAuthServer, type OAuthServerOptions } from '../../fixtures/oauth/oauthServer.js';

export const BROWSER = `${process.execPath} ${join(FIXTURES, 'oauth', 'browser.mjs')}`;

export type Fixture = Awaited<ReturnType<typeof startOAuthServer>>;

export const startFixture = (opts: Partial<OAuthServerOptions> = {}): Promise<Fixture> => startOAuthServer(opts);

export function tempOAuthDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'qiming-oauth-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function memoryLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: new Logger('test', { level: 'debug', sinks: [{ write: (l) => lines.push(l) }] }), lines };
}

export function fixtureAuth(
  fx: Fixture,
  dir: string,
  logger: Logger,
  extra: Partial<ServerAuthOptions> = {},
): ServerAuth {
  return new ServerAuth({
    url: fx.url,
    settings: {},
    store: new OAuthStore(dir),
    opener: systemOpener(logger, { ...process.env, QIMING_OAUTH_BROWSER: BROWSER }),
    logger,
    waitForSignIn: true,
    signInTimeoutMs: 10_000,
    ...extra,
  });
}

/** A transport through `auth`, with the replies it got. */
export async function client(
  fx: Fixture,
  auth: ServerAuth,
): Promise<{
  t: LeanHttpClientTransport;
  replies: Record<string, unknown>[];
  errors: Error[];
  call: (method: string, params?: object) => Promise<Record<string, unknown>>;
}> {
  const t = new LeanHttpClientTransport(new URL(fx.url), { auth });
  const replies: Record<string, unknown>[] = [];
  const errors: Error[] = [];
  const waiting = new Map<unknown, (m: Record<string, unknown>) => void>();
  t.onmessage = (m) => {
    replies.push(m as Record<string, unknown>);
    waiting.get((m as { id?: unknown }).id)?.(m as Record<string, unknown>);
  };
  t.onerror = (e) => errors.push(e);
  await t.start();
  let id = 0;
  const call = async (method: string, params: object = {}) => {
    const my = ++id;
    const answer = new Promise<Record<string, unknown>>((resolve) => waiting.set(my, resolve));
    await t.send({ jsonrpc: '2.0', id: my, method, params } as never);
    return answer;
  };
  return { t, replies, errors, call };
}

export const INIT_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } };
