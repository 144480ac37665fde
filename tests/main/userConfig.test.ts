// What the app's runtime reads of the user's config file, with the proxy's own reader: a file
// written for another client (VS Code's servers, comments and trailing commas) and a file with
// one bad entry both give the entries the bridge and the sessions get; a file that is not
// JSON, or whose top level is wrong, is refused with the proxy's message.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readUserConfig } from '../../src/main/config/userConfig.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'qiming-user-config-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const write = (text: string) => {
  const file = join(dir, 'mcp.json');
  writeFileSync(file, text);
  return file;
};

describe('readUserConfig', () => {
  it("reads VS Code's mcp.json with comments, trailing commas and inputs", async () => {
    const file = write(`{
      // from VS Code
      "inputs": [{ "type": "promptString", "id": "key" }],
      "servers": {
        "files": { "type": "stdio", "command": "node", "args": ["\${workspaceFolder}/a.js",], },
        "scratch": { "command": "node", "persistent": false },
      },
    }`);
    const view = await readUserConfig(file, {});
    expect(Object.keys(view.bridgeEntries)).toEqual(['files']);
    expect(Object.keys(view.sessionEntries)).toEqual(['scratch']);
  });

  it('passes a bad entry on beside the good ones (the bridge shows it as failed) instead of refusing the file', async () => {
    const file = write(
      JSON.stringify({ mcpServers: { good: { command: 'node' }, typo: { command: 'node', args: [1] } } }),
    );
    const view = await readUserConfig(file, {});
    expect(Object.keys(view.bridgeEntries)).toEqual(['good', 'typo']);
  });

  it('refuses a file that is not JSON, or whose top level is wrong, with the proxy message', async () => {
    await expect(readUserConfig(write('{"mcpServers": {'), {})).rejects.toThrow(/is not valid JSON/);
    await expect(readUserConfig(write('{"mcpServers": {}, "toolNaming": "short"}'), {})).rejects.toThrow(
      /toolNaming must be one of "prefixed", "original"/,
    );
  });
});
