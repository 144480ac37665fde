// The panel's "keep in the secret store" with values that hold a `$` (passwords do): a value
// without a `${...}` reference goes to the keychain as what it stands for, never in clear into
// the config file; one with a reference stays in the file, as the user wrote it. The real
// bridge, a real Secret Service (a private gnome-keyring), a real server reporting its env.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupBridges, fixture, nodeEntry, panelRequest, startBridge, tempDir } from '../../helpers/bridgeProcess.js';
import { ensureBuilt } from '../../helpers/proxyCli.js';
import { useSecretService } from '../../helpers/secretService.js';

const keyring = useSecretService();

beforeAll(() => ensureBuilt());
afterEach(() => cleanupBridges(), 30_000);

function echoEntry(env: Record<string, string>): Record<string, unknown> {
  return nodeEntry(fixture('envEchoServer.mjs'), [], { env: { ECHO_VARS: Object.keys(env).join(','), ...env } });
}

describe('values with a $ kept in the secret store', () => {
  it('go to the keychain as they expand; only a ${...} reference stays in the file', async () => {
    const dir = tempDir('qiming-secrets-dollar-');
    const file = join(dir, 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: {} }), { mode: 0o600 });
    const bridge = await startBridge({ config: undefined, args: ['--config-file', file], env: keyring.env });
    const password = 'Pa$word-7f3a$';
    const add = await panelRequest(bridge, 'POST', '/config/servers', {
      id: 'dollar',
      entry: {
        ...echoEntry({ PASSWORD: password, ESCAPED: 'a$$b-91c2', REF: '${HOME}' }),
        kind: 'stdio',
        secrets: 'store',
      },
    });
    expect(add.status, add.body).toBe(200);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(password);
    expect(text).not.toContain('a$$b-91c2');
    const env = (JSON.parse(text) as { mcpServers: Record<string, { env: Record<string, string> }> }).mcpServers.dollar
      .env;
    expect(env).toMatchObject({
      PASSWORD: '${secret:dollar/env/PASSWORD}',
      ESCAPED: '${secret:dollar/env/ESCAPED}',
      REF: '${HOME}',
    });
    expect(keyring.get('dollar/env/PASSWORD')).toBe(password);
    expect(keyring.get('dollar/env/ESCAPED')).toBe('a$b-91c2');
    await bridge.waitServer('dollar', (s) => s.state === 'ready', 20_000, 'ready');
    const { client } = await bridge.client('/mcp/dollar');
    const envOf = async (name: string) =>
      ((await client.callTool({ name: 'env', arguments: { name } })) as { content: { text: string }[] }).content[0]
        .text;
    expect(await envOf('PASSWORD')).toBe(password);
    expect(await envOf('ESCAPED')).toBe('a$b-91c2');
  }, 60_000);
});
