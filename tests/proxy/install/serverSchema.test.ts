import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InstallError } from '../../../src/proxy/install/installError.js';
import { checkServerJson } from '../../../src/proxy/install/serverJson.js';

const VENDOR = join(__dirname, '../../../src/proxy/install/vendor/server.schema.json');
const FIXTURES = join(__dirname, '../../fixtures/registry');
const doc = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;
const PUBLISHED = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
const DRAFT =
  'https://raw.githubusercontent.com/modelcontextprotocol/registry/main/docs/reference/server-json/draft/server.schema.json';

function refusal(d: unknown): string {
  let err: unknown;
  try {
    checkServerJson(d, 'the test document');
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(InstallError);
  return (err as Error).message;
}

const remote = (url: string, $schema = PUBLISHED) => ({
  $schema,
  name: 'io.github.user/tenant-weather',
  description: 'Remote MCP server whose host is a template variable.',
  version: '1.0.0',
  remotes: [{ type: 'streamable-http', url, variables: { baseUrl: { description: 'Base URL', isRequired: true } } }],
});

describe('the vendored server.json schema', () => {
  it('is the published 2025-12-11 file, byte for byte', () => {
    const bytes = readFileSync(VENDOR);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(
      '3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0',
    );
    const schema = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    expect(schema.$id).toBe(PUBLISHED);
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it("accepts the registry's valid examples and the test documents, refuses its invalid one", () => {
    for (const name of ['with-package.json', 'with-remote.json', 'memory.json', 'pypi-time.json', 'oci-github.json']) {
      expect(checkServerJson(doc(name), name).name).toBe(doc(name).name);
    }
    expect(refusal(doc('package-version-latest.json'))).toMatch(/\/packages\/0\/version must NOT be valid/);
  });

  it('refuses a remote URL that starts with a template variable (the draft allows it)', () => {
    expect(checkServerJson(remote('https://{baseUrl}/mcp'), 'ok').remotes?.[0].url).toBe('https://{baseUrl}/mcp');
    expect(refusal(remote('{baseUrl}/mcp'))).toMatch(
      /\/remotes\/0\/url must match pattern "\^https\?:\/\/\[\^\\s\]\+\$"/,
    );
  });

  it('accepts a package version longer than 255 characters (the draft caps it)', () => {
    const long = '1.0.0-' + 'a'.repeat(300);
    const d = {
      $schema: PUBLISHED,
      name: 'io.github.user/long-version',
      description: 'A package whose pre-release tag is long.',
      version: '1.0.0',
      packages: [{ registryType: 'npm', identifier: 'long-version', version: long, transport: { type: 'stdio' } }],
    };
    expect(checkServerJson(d, 'long').packages?.[0].version).toBe(long);
  });

  it('checks a document against the published schema whatever its $schema names', () => {
    expect(refusal(remote('{baseUrl}/mcp', DRAFT))).toMatch(/\/remotes\/0\/url must match pattern/);
    const unknown = 'https://static.modelcontextprotocol.io/schemas/2099-01-01/server.schema.json';
    expect(checkServerJson(remote('https://{baseUrl}/mcp', unknown), 'unknown').$schema).toBe(unknown);
    expect(refusal({ ...remote('https://{baseUrl}/mcp'), $schema: 'not a uri' })).toMatch(
      /\/\$schema must match format "uri"/,
    );
  });
});
