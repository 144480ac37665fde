// Remote upstreams that never come up: a refused port, a server answering 401, one that
// accepts and never answers, for every remote kind (http, sse, bridge, probed url). Each
// settles within its connectionTimeoutMs with a state and a lastError that say what
// happened; a 401 is asked once, not in a loop; the credentials in the url reach no log.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupBridges, spawnBridge, tempDir, waitFor } from '../../helpers/bridgeProcess.js';
import { refusedPort, silentServer, unauthorizedServer, type FaultyServer } from '../../helpers/faultyRemotes.js';
import { connectProxy, fixtureEntry, type ProxyHandle } from '../../helpers/proxyCli.js';

const servers: FaultyServer[] = [];
const handles: ProxyHandle[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
  await cleanupBridges();
  for (const s of servers.splice(0)) await s.stop();
});

const KINDS = { http: 'http', sse: 'sse', bridge: 'bridge', auto: undefined } as const;
const USERPW = 'SECRETUSERPW77';
const APIKEY = 'SECRETAPIKEY4242';
/** The silent servers' connection timeout, which is how they fail. */
const CONNECT_MS = 1500;
/**
 * The refused and 401 entries' connection timeout. They fail at once by themselves; on a
 * loaded machine the proxy's start can hold its event loop for seconds, and a timeout that
 * expires meanwhile wins over the answer already waiting, so theirs is far off.
 */
const ANSWERED_MS = 30_000;
/** Far past what a ready line or a first list needs: a wait for it shows as a bound missed by a wide margin. */
const READY_TIMEOUT_MS = 60_000;

async function faultyEntries(): Promise<{
  entries: Record<string, Record<string, unknown>>;
  denied: FaultyServer;
  silent: FaultyServer;
}> {
  const refused = await refusedPort();
  const denied = await unauthorizedServer();
  const silent = await silentServer();
  servers.push(denied, silent);
  const entries: Record<string, Record<string, unknown>> = {};
  for (const [name, type] of Object.entries(KINDS)) {
    const t = type ? { type } : {};
    entries[`refused_${name}`] = {
      url: `http://user:${USERPW}@127.0.0.1:${refused}/${name}?api_key=${APIKEY}`,
      ...t,
      connectionTimeoutMs: ANSWERED_MS,
    };
    entries[`denied_${name}`] = {
      url: `http://user:${USERPW}@127.0.0.1:${denied.port}/${name}?api_key=${APIKEY}`,
      ...t,
      connectionTimeoutMs: ANSWERED_MS,
    };
    entries[`silent_${name}`] = {
      url: `http://127.0.0.1:${silent.port}/${name}?api_key=${APIKEY}`,
      ...t,
      connectionTimeoutMs: CONNECT_MS,
    };
  }
  return { entries, denied, silent };
}

function expectNoSecret(text: string, where: string): void {
  for (const s of [USERPW, APIKEY]) expect(text.includes(s), `${s} in ${where}`).toBe(false);
}

describe('remote servers that never come up', () => {
  it('settle the bridge ready line within their connection timeout, with states and reasons; 401 is not retried', async () => {
    const { entries, denied } = await faultyEntries();
    const dir = tempDir();
    const logFile = join(dir, 'proxy.log');
    const t0 = Date.now();
    const b = spawnBridge({
      config: { mcpServers: entries, readyTimeoutMs: READY_TIMEOUT_MS },
      env: { MCP_PROXY_LOG_FILE: logFile },
    });
    // Held for the servers that never come up, the ready line would come at the ready timeout.
    const ready = await b.waitReady(20_000);
    const readyAfterMs = Date.now() - t0;
    expect(readyAfterMs).toBeLessThan(20_000);
    const byId = Object.fromEntries(ready.servers.map((s) => [s.id, s]));
    for (const name of Object.keys(KINDS)) {
      expect(byId[`denied_${name}`], name).toMatchObject({ state: 'failed' });
      expect(byId[`denied_${name}`].error, name).toMatch(/HTTP 401 Unauthorized from http:\/\/127\.0\.0\.1:\d+\//);
      expect(byId[`refused_${name}`].state, name).not.toBe('starting');
      expect(byId[`refused_${name}`].error, name).toMatch(/connection refused/);
      expect(byId[`silent_${name}`].state, name).not.toBe('starting');
      expect(byId[`silent_${name}`].error, name).toMatch(new RegExp(`no answer .*within ${CONNECT_MS} ms`));
    }

    // The other failures go through the restart policy (restarts counted, reason kept). The
    // silent ones fail last, after their connection timeout: by their first restart a 401 in
    // a loop (failed at once, restarted after the same backoff) would have been asked again
    // long since. It was asked at most three times per entry (the 2026-07-28 era probe, the
    // transport probe of an auto entry, initialize).
    const status = await waitFor(
      async () => {
        const s = await b.status();
        return s.servers.every((x) => x.id.startsWith('denied_') || x.restarts >= 1) && s;
      },
      15_000,
      'every failure but the 401s restarted once',
      200,
    );
    for (const name of Object.keys(KINDS))
      expect(denied.counts.get(`/${name}`) ?? 0, `401 requests for ${name}`).toBeLessThanOrEqual(3);
    for (const s of status.servers) {
      if (s.id.startsWith('denied_')) expect(s.state, s.id).toBe('failed');
      else {
        expect(['restarting', 'failed', 'starting']).toContain(s.state);
        expect(s.restarts, s.id).toBeGreaterThanOrEqual(1);
        expect(s.lastError, s.id).toBeTruthy();
      }
    }
    // The silent server was noticed in the log, and no credential reached any surface.
    expect(b.stderr).toMatch(/silent_http.*no answer/);
    expectNoSecret(b.stderr, 'stderr');
    expectNoSecret(b.stdout, 'ready line');
    expectNoSecret(JSON.stringify(status), '/status');
    expect(existsSync(logFile)).toBe(true);
    expectNoSecret(readFileSync(logFile, 'utf8'), 'log file');
  }, 60_000);

  it('do not hold the first tools/list of a stdio session', async () => {
    const { entries } = await faultyEntries();
    const config = { mcpServers: { local: fixtureEntry('local'), ...entries }, readyTimeoutMs: READY_TIMEOUT_MS };
    const h = await connectProxy(['--config', JSON.stringify(config), '--no-watchdog']);
    handles.push(h);
    const t0 = Date.now();
    const tools = (await h.client.listTools()).tools.map((t) => t.name);
    // Held for the servers that never come up, this list would wait for the ready timeout.
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(tools).toContain('local__echo');
    expect(tools.filter((t) => !t.startsWith('local__'))).toEqual([]);
    // Every faulty entry has logged its failure (naming its url) before the stderr is checked.
    const faulty = Object.keys(entries);
    await waitFor(
      () => faulty.every((id) => h.stderr.join('').includes(`[${id}] start failed`)),
      20_000,
      () => `a start failure logged for each of ${faulty.join(', ')}`,
    );
    const deniedHttp = h.stderr
      .join('')
      .split(/(?=\[\d{4}-\d\d-\d\d )/)
      .filter((l) => l.includes('[denied_http]'));
    expect(deniedHttp.join('\n')).toMatch(/HTTP 401 Unauthorized from http:\/\/127\.0\.0\.1:\d+\/http\?api_key=\*\*\*/);
    expectNoSecret(h.stderr.join('\n'), 'stderr');
  }, 60_000);
});
