// A secret the user types for a registry argument, on the real bridge with the app's secret
// store (the key in its environment, as the app hands it down): the value goes to the store
// and the config file holds only its reference, like a secret variable. docker's
// `-e NAME=<secret>` becomes the variable NAME, passed on as `-e NAME`, so the value reaches
// the server (a stand-in docker on PATH) in its environment and never in an argv. Any other
// secret argument is in the server's argv while it runs: the consent says so before, and the
// server's status and the log say so at every start, naming the secret, never its value.
// Without a store, the plan says the values stay in the config file, and they do.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupBridges,
  fixture,
  panelRequest,
  startBridge,
  tempDir,
  waitFor,
  type BridgeProcess,
} from '../../helpers/bridgeProcess.js';
import { FixtureRegistry } from '../../fixtures/registry/fixtureRegistry.js';
import { AppSecretStore } from '../../../src/proxy/secrets/appSecretStore.js';
import { codecFromEnv } from '../../../src/proxy/oauth/keyCodec.js';

const API_KEY = `sk-arg-${randomBytes(6).toString('hex')}`;
const TOKEN = `tok-env-${randomBytes(6).toString('hex')}`;
const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
const ECHO = fixture('envEchoServer.mjs');

/** An "npm" package run by this Node (its runtimeHint) with the env-echo server, and a secret `--api-key`. */
const argDoc = {
  $schema: SCHEMA,
  name: 'io.github.example/argkey',
  description: 'Takes its key as an argument.',
  version: '1.0.0',
  packages: [
    {
      registryType: 'npm',
      identifier: '@example/argkey',
      version: '1.0.0',
      runtimeHint: process.execPath,
      transport: { type: 'stdio' },
      runtimeArguments: [{ type: 'positional', value: ECHO }],
      packageArguments: [{ type: 'named', name: '--api-key', isSecret: true, isRequired: true }],
    },
  ],
};
/** A container whose token docker sets with `-e API_TOKEN={token}`. */
const dockerDoc = {
  $schema: SCHEMA,
  name: 'io.github.example/dockerkey',
  description: 'Takes its token through docker -e.',
  version: '1.0.0',
  packages: [
    {
      registryType: 'oci',
      identifier: 'example/dockerkey',
      version: '1.0.0',
      transport: { type: 'stdio' },
      runtimeArguments: [
        {
          type: 'named',
          name: '-e',
          value: 'API_TOKEN={token}',
          variables: { token: { isSecret: true, isRequired: true, description: 'The API token' } },
        },
      ],
    },
  ],
};

let registry: FixtureRegistry;
let bridge: BridgeProcess;
let bare: BridgeProcess;
let dir: string;
let file: string;
let bareFile: string;
let log: string;
let storeEnv: Record<string, string>;

const json = async (b: BridgeProcess, method: string, path: string, body?: unknown) => {
  const r = await panelRequest(b, method, path, body);
  return { status: r.status, body: JSON.parse(r.body) as Record<string, any> };
};
const entryOf = (f: string, id: string) => JSON.parse(readFileSync(f, 'utf8')).mcpServers[id];
const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
const stored = (name: string) => new AppSecretStore(join(dir, 'secrets.enc'), codecFromEnv(storeEnv)!).get(name);

beforeAll(async () => {
  registry = new FixtureRegistry({ servers: [argDoc, dockerDoc] });
  await registry.listen();
  dir = tempDir('install-secret-args-');
  file = join(dir, 'mcp.json');
  bareFile = join(dir, 'bare.json');
  log = join(dir, 'bridge.log');
  writeFileSync(file, JSON.stringify({ mcpServers: {} }));
  writeFileSync(bareFile, JSON.stringify({ mcpServers: {} }));
  // A stand-in docker: the env-echo server, given docker's arguments as its own.
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'docker'), `#!/bin/sh\nexec "${process.execPath}" "${ECHO}" "$@"\n`);
  chmodSync(join(bin, 'docker'), 0o755);
  storeEnv = { QIMING_OAUTH_KEY: randomBytes(32).toString('base64'), QIMING_OAUTH_DIR: join(dir, 'oauth') };
  const common = { QIMING_REGISTRY_URL: registry.url, PATH: `${bin}:${process.env.PATH ?? ''}` };
  bridge = await startBridge({
    config: file,
    env: { ...common, ...storeEnv, QIMING_DATA_DIR: join(dir, 'data'), MCP_PROXY_LOG_FILE: log },
  });
  // The app without safeStorage: no store at all.
  bare = await startBridge({
    config: bareFile,
    env: { ...common, QIMING_SECRET_STORE: 'app', QIMING_DATA_DIR: join(dir, 'bare-data') },
  });
}, 60_000);

afterAll(async () => {
  await cleanupBridges();
  await registry.close();
}, 30_000);

describe('a secret typed for an argument', () => {
  it('goes to the store; in argv, the consent, the status and the log say so', async () => {
    const r = await json(bridge, 'POST', '/install/plan', {
      registry: { name: 'io.github.example/argkey' },
      values: { 'args.--api-key': API_KEY },
    });
    expect(r.status).toBe(200);
    const plan = r.body.plan;
    expect(JSON.stringify(plan)).not.toContain(API_KEY);
    const done = await json(bridge, 'POST', '/install/confirm', { planId: plan.planId });
    expect(done.status).toBe(200);
    const args: string[] = entryOf(file, 'argkey').args;
    expect(args.slice(0, 2)).toEqual([ECHO, '@example/argkey@1.0.0']);
    const ref = /^--api-key=\$\{secret:([A-Za-z0-9_./-]+)\}$/.exec(args[2]);
    expect(ref, args[2]).not.toBeNull();
    expect(plan.shown).toBe(`${process.execPath} ${ECHO} @example/argkey@1.0.0 '--api-key=********'`);
    expect(plan.secretsOnCommandLine).toEqual(['--api-key']);
    expect(plan.secretsKept).toBe('store');
    const name = ref![1];
    expect(readFileSync(file, 'utf8')).not.toContain(API_KEY);
    expect(await stored(name)).toBe(API_KEY);
    expect(JSON.parse(readFileSync(join(dir, 'data', 'installs.json'), 'utf8')).argkey.secrets).toEqual([name]);

    const server = await bridge.waitServer('argkey', (s) => s.state === 'ready', 30_000, 'argkey ready');
    expect(server.launch?.argvSecrets).toEqual([name]);
    // What the consent said: the value is in the process list while the server runs.
    expect(cmdline(server.pid!)).toContain(`--api-key=${API_KEY}`);
    await waitFor(
      () => readFileSync(log, 'utf8').includes(`its arguments hold the secret ${name}:`),
      10_000,
      'the log line',
    );
    expect(readFileSync(log, 'utf8')).toContain('other users of this computer can read the value in the process list');
    expect(readFileSync(log, 'utf8')).not.toContain(API_KEY);
    expect(JSON.stringify(await bridge.status())).not.toContain(API_KEY);
  }, 60_000);

  it("docker's -e NAME=<secret> reaches the server in its environment, not in an argv", async () => {
    const r = await json(bridge, 'POST', '/install/plan', {
      registry: { name: 'io.github.example/dockerkey' },
      values: { 'runtime.-e.token': TOKEN },
    });
    expect(r.status).toBe(200);
    const plan = r.body.plan;
    expect(plan.shown).toBe('docker run -i --rm -e API_TOKEN example/dockerkey:1.0.0');
    expect(plan.env).toEqual([{ name: 'API_TOKEN', value: '********', secret: true }]);
    expect(plan.secretsOnCommandLine).toEqual([]);
    expect(plan.inputs.map((i: { label: string; secret: boolean }) => [i.label, i.secret])).toEqual([
      ['-e: token', true],
    ]);

    await json(bridge, 'POST', '/install/confirm', { planId: plan.planId });
    const entry = entryOf(file, 'dockerkey');
    expect(entry.args).toEqual(['run', '-i', '--rm', '-e', 'API_TOKEN', 'example/dockerkey:1.0.0']);
    expect(entry.env.API_TOKEN).toMatch(/^\$\{secret:[A-Za-z0-9_./-]+\}$/);
    expect(readFileSync(file, 'utf8')).not.toContain(TOKEN);

    const server = await bridge.waitServer('dockerkey', (s) => s.state === 'ready', 30_000, 'dockerkey ready');
    expect(server.launch?.argvSecrets).toBeUndefined();
    expect(cmdline(server.pid!)).toContain('run -i --rm -e API_TOKEN example/dockerkey:1.0.0');
    expect(cmdline(server.pid!)).not.toContain(TOKEN);
    const call = await json(bridge, 'POST', '/servers/dockerkey/tools/call', {
      name: 'env',
      arguments: { name: 'API_TOKEN' },
    });
    expect(JSON.stringify(call.body)).toContain(TOKEN);
  }, 60_000);

  it('without a store: the plan says the config file keeps it, and it does', async () => {
    const r = await json(bare, 'POST', '/install/plan', {
      registry: { name: 'io.github.example/argkey' },
      values: { 'args.--api-key': API_KEY },
    });
    expect(r.body.plan.secretsKept).toBe('config');
    expect(r.body.plan.secretsOnCommandLine).toEqual(['--api-key']);
    await json(bare, 'POST', '/install/confirm', { planId: r.body.plan.planId });
    expect(entryOf(bareFile, 'argkey').args[2]).toBe(`--api-key=${API_KEY}`);
  });
});
