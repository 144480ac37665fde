// A nuget package from the registry, installed through a real bridge: the consent shows
// `dnx <id>@<version> --yes -- <args>`, whether dnx is on this machine is read from the
// login-shell PATH (handed down in QIMING_LOGIN_PATH, as the app does), and after the confirm
// the bridge runs that command line. The `dnx` here is a stand-in script that records its
// arguments and runs a fixture MCP server, so no .NET is needed.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBridges, panelRequest, startBridge, tempDir, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { waitFor } from '../../helpers/waitFor.js';
import { FIXTURES } from '../../helpers/paths.js';
import { FixtureRegistry } from '../../fixtures/registry/fixtureRegistry.js';

const doc = JSON.parse(readFileSync(join(FIXTURES, 'registry', 'nuget-weather.json'), 'utf8')) as Record<
  string,
  unknown
>;
const NAME = 'io.github.example/weather-dotnet';
let registry: FixtureRegistry;
let dir: string;

async function json(bridge: BridgeProcess, method: string, path: string, body?: unknown) {
  const r = await panelRequest(bridge, method, path, body);
  return { status: r.status, body: JSON.parse(r.body) as Record<string, any> };
}

/** A bridge whose PATH holds only node's folder and whose login-shell PATH is `loginPath`. */
function bridgeWith(loginPath: string, name: string) {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers: {} }));
  return startBridge({
    config: file,
    env: {
      QIMING_REGISTRY_URL: registry.url,
      QIMING_DATA_DIR: join(dir, `${name}-data`),
      QIMING_LOGIN_PATH: loginPath,
      PATH: dirname(process.execPath),
    },
  });
}

beforeAll(async () => {
  registry = new FixtureRegistry({ servers: [doc] });
  await registry.listen();
  dir = tempDir('nuget-install-');
}, 30_000);

afterAll(async () => {
  await cleanupBridges();
  await registry.close();
}, 30_000);

describe('a nuget package', () => {
  it('without dnx on the login-shell PATH: the plan says dnx is missing', async () => {
    const empty = join(dir, 'no-tools');
    mkdirSync(empty);
    const bridge = await bridgeWith(empty, 'missing');
    const r = await json(bridge, 'POST', '/install/plan', {
      registry: { name: NAME },
      values: { 'env.WEATHER_CHOICES': 'sunny' },
    });
    expect(r.status).toBe(200);
    expect(r.body.plan.shown).toBe('dnx Example.WeatherMcp@0.5.0 --yes -- --units=metric');
    expect(r.body.plan.runtime).toEqual({ command: 'dnx', found: false });
    const search = await json(bridge, 'GET', '/install/registry/servers?search=weather');
    expect(search.body.servers[0].transports).toEqual(['nuget (stdio)']);
    // Installed anyway, it cannot start, and says what to install.
    await json(bridge, 'POST', '/install/confirm', { planId: r.body.plan.planId });
    const lastError = await waitFor(
      async () => {
        const s = (await json(bridge, 'GET', '/status')).body as { servers: { id: string; lastError?: string }[] };
        return s.servers.find((x) => x.id === 'weather-dotnet')?.lastError;
      },
      30_000,
      'the start error of weather-dotnet',
    );
    expect(lastError).toMatch(
      /command 'dnx' not found on PATH .*; install the \.NET SDK \(10 or later for dnx\), or set "command" to an absolute path/,
    );
  }, 40_000);

  it('with dnx on the login-shell PATH: found there, installed, and run with that command line', async () => {
    const tools = join(dir, 'dotnet-tools');
    mkdirSync(tools);
    const argsFile = join(dir, 'dnx-args.txt');
    const dnx = join(tools, 'dnx');
    writeFileSync(
      dnx,
      `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\nexec '${process.execPath}' '${join(FIXTURES, 'mcpFixtureServer.mjs')}' --name weather\n`,
    );
    chmodSync(dnx, 0o755);
    const bridge = await bridgeWith(tools, 'found');
    const r = await json(bridge, 'POST', '/install/plan', {
      registry: { name: NAME },
      values: { 'env.WEATHER_CHOICES': 'sunny,rain' },
    });
    expect(r.body.plan.runtime).toEqual({ command: 'dnx', found: true, path: dnx });
    const done = await json(bridge, 'POST', '/install/confirm', { planId: r.body.plan.planId });
    expect(done.body).toEqual(expect.objectContaining({ ok: true, serverId: 'weather-dotnet' }));
    await waitFor(
      async () => {
        const s = (await json(bridge, 'GET', '/status')).body as { servers: { id: string; state: string }[] };
        return s.servers.find((x) => x.id === 'weather-dotnet')?.state === 'ready';
      },
      30_000,
      'weather-dotnet ready',
    );
    expect(readFileSync(argsFile, 'utf8').trim().split('\n')).toEqual([
      'Example.WeatherMcp@0.5.0',
      '--yes',
      '--',
      '--units=metric',
    ]);
  }, 60_000);
});
