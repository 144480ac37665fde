import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InstallError } from '../../../src/proxy/install/installError.js';
import { RegistryClient } from '../../../src/proxy/install/registryClient.js';
import { DEFAULT_REGISTRY_URL, registryBaseUrl } from '../../../src/proxy/install/registryUrl.js';
import { packageEntry, remoteEntry } from '../../../src/proxy/install/serverJsonEntry.js';
import { shownLine, shownValues, writtenEntry } from '../../../src/proxy/install/plannedEntry.js';
import { checkServerJson, type ServerJson } from '../../../src/proxy/install/serverJson.js';
import { FixtureRegistry } from '../../fixtures/registry/fixtureRegistry.js';

const FIXTURES = join(__dirname, '../../fixtures/registry');
const doc = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;
const DOCS = ['with-package.json', 'with-remote.json', 'memory.json', 'pypi-time.json', 'oci-github.json'].map(doc);

const registries: FixtureRegistry[] = [];
async function registry(servers = DOCS): Promise<FixtureRegistry> {
  const r = new FixtureRegistry({ servers });
  registries.push(r);
  await r.listen();
  return r;
}
afterEach(async () => {
  for (const r of registries.splice(0)) await r.close();
});

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InstallError);
  return (err as Error).message;
}

describe('the registry URL', () => {
  it('is QIMING_REGISTRY_URL over the setting over the official registry', () => {
    expect(registryBaseUrl({}, undefined)).toBe(DEFAULT_REGISTRY_URL);
    expect(registryBaseUrl({}, 'http://127.0.0.1:9/reg/')).toBe('http://127.0.0.1:9/reg');
    expect(registryBaseUrl({ QIMING_REGISTRY_URL: 'http://127.0.0.1:8' }, 'http://127.0.0.1:9')).toBe(
      'http://127.0.0.1:8',
    );
    expect(() => registryBaseUrl({ QIMING_REGISTRY_URL: 'file:///etc' }, undefined)).toThrow(/must be http\(s\)/);
  });
});

describe('the registry client', () => {
  it('searches and pages with the cursor until the last page', async () => {
    const r = await registry();
    const client = new RegistryClient(r.url);
    const first = await client.search({ limit: 2 });
    expect(first.servers.map((s) => s.server.name)).toEqual([
      'io.github.user/local-weather',
      'io.github.user/remote-weather',
    ]);
    expect(first.nextCursor).toBe('2');
    const names: string[] = first.servers.map((s) => s.server.name);
    for (let cursor = first.nextCursor; cursor !== undefined;) {
      const page = await client.search({ limit: 2, cursor });
      names.push(...page.servers.map((s) => s.server.name));
      cursor = page.nextCursor;
    }
    expect(names).toHaveLength(5);
    const hit = await client.search({ search: 'memory' });
    expect(hit.servers.map((s) => s.server.name)).toEqual(['io.github.modelcontextprotocol/memory']);
    expect(hit.servers[0].official?.isLatest).toBe(true);
    expect(r.requests.some((u) => u.includes('search=memory'))).toBe(true);
  });

  it("lists one server's versions", async () => {
    const older = { ...doc('memory.json'), version: '2025.1.1' };
    const r = await registry([older, doc('memory.json')]);
    const versions = await new RegistryClient(r.url).versions('io.github.modelcontextprotocol/memory');
    expect(versions.map((v) => v.server.version)).toEqual(['2025.1.1', '2026.8.31']);
    expect(await refusal(new RegistryClient(r.url).versions('io.example/none'))).toMatch(/answered HTTP 404/);
  });

  it('refuses a page with a document that fails the schema, and one that is not JSON', async () => {
    const r = await registry();
    r.mode = 'malformed';
    expect(await refusal(new RegistryClient(r.url).search())).toMatch(
      /servers\[5\] is not a valid server\.json: .*must/,
    );
    r.mode = 'garbled';
    expect(await refusal(new RegistryClient(r.url).search())).toMatch(/did not answer JSON/);
    expect(() => checkServerJson(doc('package-version-latest.json'), 'the document')).toThrow(
      /\/packages\/0\/version must NOT be valid/,
    );
  });

  it("follows a redirect on the registry's own origin only, at most 5 times", async () => {
    const other = await registry();
    const memory = `/v0.1/servers/${encodeURIComponent('io.github.modelcontextprotocol/memory')}/versions`;
    const r = new FixtureRegistry({
      servers: DOCS,
      redirects: {
        '/v0.1/servers': '/v0.1/servers/?limit=30&version=latest',
        [memory]: `${other.url}${memory}`,
        '/loop/v0.1/servers': '/loop/v0.1/servers',
      },
    });
    registries.push(r);
    await r.listen();
    const page = await new RegistryClient(r.url).search();
    expect(page.servers).toHaveLength(5);
    expect(r.requests.slice(0, 2)).toEqual([
      '/v0.1/servers?limit=30&version=latest',
      '/v0.1/servers/?limit=30&version=latest',
    ]);
    expect(await refusal(new RegistryClient(r.url).versions('io.github.modelcontextprotocol/memory'))).toBe(
      `the registry ${r.url} redirected to ${other.url}, another origin than its own: refused`,
    );
    expect(other.requests).toEqual([]);
    expect(await refusal(new RegistryClient(`${r.url}/loop`).search())).toBe(
      `the registry ${r.url}/loop redirected more than 5 times: refused`,
    );
    expect(r.requests.filter((u) => u.startsWith('/loop/'))).toHaveLength(6);
  });

  it('refuses versions that name another server than the one asked for', async () => {
    const r = new FixtureRegistry({
      servers: DOCS,
      answerAs: { 'io.github.x/asked-for': 'io.github.modelcontextprotocol/memory' },
    });
    registries.push(r);
    await r.listen();
    expect(await refusal(new RegistryClient(r.url).versions('io.github.x/asked-for'))).toBe(
      `the registry ${r.url} answered "io.github.modelcontextprotocol/memory" when asked for "io.github.x/asked-for": refused`,
    );
  });

  it('fails fast with a message when the registry is slow, down or too large', async () => {
    const r = await registry();
    r.mode = 'slow';
    expect(await refusal(new RegistryClient(r.url, { timeoutMs: 300, maxBytes: 1 << 20 }).search())).toMatch(
      /did not answer within 300 ms/,
    );
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    expect(await refusal(new RegistryClient(`http://127.0.0.1:${port}`).search())).toMatch(
      /cannot reach the registry .*ECONNREFUSED/,
    );
    r.mode = 'ok';
    expect(await refusal(new RegistryClient(r.url, { timeoutMs: 5000, maxBytes: 100 }).search())).toMatch(
      /sent more than 100 bytes/,
    );
  });
});

describe('server.json to an entry', () => {
  const sj = (name: string) => checkServerJson(doc(name), name) as ServerJson;

  it('npm: npx -y <identifier>@<version> with its arguments, the secret env var asked for', () => {
    const s = sj('with-package.json');
    const asked = packageEntry(s, s.packages![0], {});
    expect(asked.missing).toEqual(['API_KEY']);
    expect(asked.inputs.map((i) => [i.key, i.secret])).toEqual([
      ['env.API_KEY', true],
      ['args.config_path', false],
    ]);
    const plan = packageEntry(s, s.packages![0], { 'env.API_KEY': 'k-1', 'args.config_path': '/tmp/w.json' });
    expect(shownLine(plan.entry)).toBe('npx -y @modelcontextprotocol/server-weather@1.0.0 /tmp/w.json --port=8080');
    expect(writtenEntry(plan.entry).env).toEqual({ API_KEY: 'k-1' });
    expect(shownValues(plan.entry.env)).toEqual([{ name: 'API_KEY', value: '********', secret: true }]);
    expect(plan.runtime).toBe('npx');
  });

  it('pypi: uvx <identifier>==<version>; oci: docker run -i --rm with -e for its env', () => {
    const t = sj('pypi-time.json');
    expect(shownLine(packageEntry(t, t.packages![0], {}).entry)).toBe(
      'uvx mcp-server-time==0.6.2 --local-timezone=UTC',
    );
    const g = sj('oci-github.json');
    const plan = packageEntry(g, g.packages![0], { 'env.GITHUB_PERSONAL_ACCESS_TOKEN': 't' });
    expect(shownLine(plan.entry)).toBe(
      'docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN ghcr.io/example/github-mcp-server:0.9.0',
    );
    expect(plan.runtime).toBe('docker');
  });

  it('remotes: a url entry with the template filled and its headers', () => {
    const s = sj('with-remote.json');
    const plan = remoteEntry(s, s.remotes![0], { 'headers.Authorization': 'Bearer x' });
    expect(shownLine(plan.entry)).toBe('https://api.example.com/mcp');
    expect(writtenEntry(plan.entry)).toEqual({
      kind: 'remote',
      url: 'https://api.example.com/mcp',
      transport: 'http',
      headers: { Authorization: 'Bearer x' },
    });
    expect(shownValues(plan.entry.headers)).toEqual([{ name: 'Authorization', value: '********', secret: true }]);
    expect(shownLine(remoteEntry(s, s.remotes![0], { 'url.host': 'eu.example.com' }).entry)).toBe(
      'https://eu.example.com/mcp',
    );
  });

  it('nuget: dnx <identifier>@<version> --yes, the package arguments after --', () => {
    const s = sj('nuget-weather.json');
    const asked = packageEntry(s, s.packages![0], {});
    expect(asked.missing).toEqual(['WEATHER_CHOICES']);
    const plan = packageEntry(s, s.packages![0], { 'env.WEATHER_CHOICES': 'sunny,rain' });
    expect(shownLine(plan.entry)).toBe('dnx Example.WeatherMcp@0.5.0 --yes -- --units=metric');
    expect(writtenEntry(plan.entry)).toEqual({
      kind: 'stdio',
      command: 'dnx',
      args: ['Example.WeatherMcp@0.5.0', '--yes', '--', '--units=metric'],
      env: { WEATHER_CHOICES: 'sunny,rain' },
    });
    expect(plan.runtime).toBe('dnx');
    const bare = { ...s.packages![0], packageArguments: undefined, runtimeHint: undefined };
    expect(shownLine(packageEntry(s, bare, { 'env.WEATHER_CHOICES': 'x' }).entry)).toBe(
      'dnx Example.WeatherMcp@0.5.0 --yes',
    );
  });

  it('refuses kinds it cannot run', () => {
    const s = sj('pypi-time.json');
    expect(() => packageEntry(s, { ...s.packages![0], registryType: 'cargo' }, {})).toThrow(
      /"cargo" cannot be installed here \(npm, pypi, oci, nuget, mcpb and remotes can\)/,
    );
  });
});
