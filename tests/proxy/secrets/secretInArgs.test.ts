// `${secret:NAME}` in a stdio entry's args, on the real bridge with the app's secret store: the
// server gets the value in its argv, which no launch can hide from the process list, so every
// start says so: the server's status names the secret (`launch.argvSecrets`) and the log warns,
// naming it, never its value. A secret in `env` is not named there.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupBridges,
  fixture,
  startBridge,
  tempDir,
  waitFor,
  type BridgeProcess,
} from '../../helpers/bridgeProcess.js';
import { AppSecretStore } from '../../../src/proxy/secrets/appSecretStore.js';
import { codecFromEnv } from '../../../src/proxy/oauth/keyCodec.js';

const VALUE = `argv-secret-${randomBytes(6).toString('hex')}`;
const IN_ENV = `env-secret-${randomBytes(6).toString('hex')}`;

let bridge: BridgeProcess;
let log: string;

beforeAll(async () => {
  const dir = tempDir('secret-in-args-');
  const file = join(dir, 'mcp.json');
  log = join(dir, 'bridge.log');
  const env = { QIMING_OAUTH_KEY: randomBytes(32).toString('base64'), QIMING_OAUTH_DIR: join(dir, 'oauth') };
  const store = new AppSecretStore(join(dir, 'secrets.enc'), codecFromEnv(env)!);
  await store.set('demo.token', VALUE);
  await store.set('demo.KEY', IN_ENV);
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        demo: {
          command: process.execPath,
          args: [fixture('envEchoServer.mjs'), '--token=${secret:demo.token}'],
          env: { KEY: '${secret:demo.KEY}' },
        },
      },
    }),
  );
  bridge = await startBridge({ config: file, env: { ...env, MCP_PROXY_LOG_FILE: log } });
}, 40_000);

afterAll(async () => {
  await cleanupBridges();
}, 30_000);

describe('a secret in args', () => {
  it('is named in the status and the log at start, as visible in the process list', async () => {
    const server = await bridge.waitServer('demo', (s) => s.state === 'ready', 30_000, 'demo ready');
    expect(server.launch?.argvSecrets).toEqual(['demo.token']);
    expect(readFileSync(`/proc/${server.pid}/cmdline`, 'utf8')).toContain(`--token=${VALUE}`);
    await waitFor(
      () => readFileSync(log, 'utf8').includes('its arguments hold the secret demo.token:'),
      10_000,
      'the warning',
    );
    const text = readFileSync(log, 'utf8');
    expect(text).toMatch(
      /\[demo\] its arguments hold the secret demo\.token: while it runs, other users of this computer can read the value in the process list/,
    );
    expect(text).not.toContain('demo.KEY');
    for (const surface of [text, bridge.stderr, JSON.stringify(await bridge.status())]) {
      expect(surface).not.toContain(VALUE);
      expect(surface).not.toContain(IN_ENV);
    }
  });
});
