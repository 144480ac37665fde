// The `oauth` field of a remote entry: shape, ${VAR} expansion, errors that quote no value,
// and the client secret masked like a header value.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, type RemoteEntry } from '../../../src/proxy/config/config.js';
import { entrySecrets } from '../../../src/proxy/config/redact.js';

function parse(entry: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): RemoteEntry {
  return parseConfig({ mcpServers: { s: entry } }, { env }).servers[0] as RemoteEntry;
}
function issues(entry: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): string {
  try {
    parse(entry, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('oauth config', () => {
  it('is optional: a bare url has no oauth settings (discovery decides)', () => {
    expect(parse({ url: 'https://mcp.example/mcp' }).oauth).toBeUndefined();
  });
  it('takes false, or the five optional fields with ${VAR} expansion', () => {
    expect(parse({ url: 'https://mcp.example/mcp', oauth: false }).oauth).toBe(false);
    const e = parse(
      {
        url: 'https://mcp.example/mcp',
        oauth: {
          clientId: '${ID}',
          clientSecret: '${SECRET}',
          scopes: ['read', '${EXTRA:-}'],
          callbackPort: 23456,
          clientMetadataUrl: 'https://app.example/client.json',
        },
      },
      { ID: 'my-client', SECRET: 'very-secret-value-123' },
    );
    expect(e.oauth).toEqual({
      clientId: 'my-client',
      clientSecret: 'very-secret-value-123',
      scopes: ['read'],
      callbackPort: 23456,
      clientMetadataUrl: 'https://app.example/client.json',
    });
    expect(entrySecrets(e)).toContain('very-secret-value-123');
  });
  it('refuses bad values with the field path and never the value', () => {
    const text = issues({
      url: 'https://mcp.example/mcp',
      oauth: { clientSecret: 'hidden-secret-999', callbackPort: 70000, bogus: 1 },
    });
    expect(text).toMatch(/oauth/);
    expect(text).not.toContain('hidden-secret-999');
    expect(issues({ url: 'https://mcp.example/mcp', oauth: { callbackPort: 0 } })).toMatch(
      /oauth\.callbackPort must be a port number/,
    );
    expect(issues({ url: 'https://mcp.example/mcp', oauth: { clientSecret: 'hidden-secret-999' } })).toMatch(
      /oauth\.clientSecret needs oauth\.clientId/,
    );
    expect(issues({ url: 'https://mcp.example/mcp', oauth: { clientMetadataUrl: 'http://app.example/x' } })).toMatch(
      /oauth\.clientMetadataUrl must be an https URL/,
    );
    expect(issues({ url: 'https://mcp.example/mcp', oauth: true })).toMatch(/oauth must be false or an object/);
    expect(issues({ url: 'https://mcp.example/mcp', oauth: { clientId: '${NOPE}' } })).toMatch(
      /oauth\.clientId references \$\{NOPE\}/,
    );
    expect(issues({ command: 'node', oauth: false })).toMatch(/oauth applies only to remote/);
  });
});
