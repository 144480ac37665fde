// A value the panel moves from the config file to the keychain (an entry's clear env value
// saved again with "Keep new values in the secret store") leaves no copy behind: the edit that
// moves it writes no `mcp.json.bak` and removes the one an earlier edit left, so no file in the
// config's folder holds the value. Other edits keep their `.bak`. The real bridge (the built
// CLI) against a real Secret Service (a private gnome-keyring on a private session bus).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupBridges, fixture, nodeEntry, panelRequest, startBridge, tempDir } from '../../helpers/bridgeProcess.js';
import { ensureBuilt } from '../../helpers/proxyCli.js';
import { SECRET_MASK } from '../../../src/shared/configContract.js';
import { useSecretService } from '../../helpers/secretService.js';

const keyring = useSecretService();
const VALUE = `sk-moved-${Math.random().toString(36).slice(2)}Qx7`;

beforeAll(() => ensureBuilt());
afterEach(() => cleanupBridges(), 30_000);

const echoEntry = (env: Record<string, string>) =>
  nodeEntry(fixture('envEchoServer.mjs'), [], { env: { ECHO_VARS: Object.keys(env).join(','), ...env } });

/** Every file of `dir` whose bytes hold `value`. */
function filesHolding(dir: string, value: string): string[] {
  return readdirSync(dir).filter((f) => readFileSync(join(dir, f), 'latin1').includes(value));
}

describe('a secret moved to the keychain', () => {
  it('leaves no .bak holding its value; a later edit writes a .bak again, without it', async () => {
    const dir = tempDir('qiming-moved-');
    const file = join(dir, 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { demo: echoEntry({ TOKEN: VALUE, MODE: 'a' }) } }, null, 2), {
      mode: 0o600,
    });
    const bridge = await startBridge({ config: undefined, args: ['--config-file', file], env: keyring.env });

    // An ordinary edit: the .bak keeps the previous file, clear value included (as before).
    const plain = await panelRequest(bridge, 'PUT', '/config/servers/demo', {
      entry: { ...echoEntry({ TOKEN: SECRET_MASK, MODE: 'b' }), kind: 'stdio' },
    });
    expect(plain.status, plain.body).toBe(200);
    expect(readFileSync(`${file}.bak`, 'utf8')).toContain(VALUE);

    // The value typed again with the store ticked: kept in the keychain, and no copy left.
    const moved = await panelRequest(bridge, 'PUT', '/config/servers/demo', {
      entry: { ...echoEntry({ TOKEN: VALUE, MODE: 'b' }), kind: 'stdio', secrets: 'store' },
    });
    expect(moved.status, moved.body).toBe(200);
    expect(keyring.get('demo/env/TOKEN')).toBe(VALUE);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.demo.env.TOKEN).toBe('${secret:demo/env/TOKEN}');
    expect(existsSync(`${file}.bak`)).toBe(false);
    expect(filesHolding(dir, VALUE)).toEqual([]);

    // The next edit backs up again: the file as it was, holding the reference only.
    const after = await panelRequest(bridge, 'PUT', '/config/servers/demo', {
      entry: { ...echoEntry({ TOKEN: '${secret:demo/env/TOKEN}', MODE: 'c' }), kind: 'stdio' },
    });
    expect(after.status, after.body).toBe(200);
    expect(readFileSync(`${file}.bak`, 'utf8')).toContain('${secret:demo/env/TOKEN}');
    expect(filesHolding(dir, VALUE)).toEqual([]);
  });
});
