// An aggregated tool name keeps its owner whatever order the servers become ready in: with
// servers `a` (tools `b__pid`, ...) and `a__b` (tools `pid`, ...), both `pid` tools spell
// `a__b__pid`, and each gets the same name before and after the other server is up, in both
// start orders (real fixture servers under the built CLI, gated to start one after the other).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { FIXTURES } from '../../helpers/paths.js';
import { connectProxy, ensureBuilt, tempDir, waitFor, type ProxyHandle } from '../../helpers/proxyCli.js';
import { text } from '../../helpers/toolText.js';

const SLOW = join(FIXTURES, 'slowStartServer.mjs');
let handles: ProxyHandle[] = [];
let dirs: { remove: () => void }[] = [];

beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const h of handles) await h.close();
  handles = [];
  for (const d of dirs) d.remove();
  dirs = [];
});

/** The exposed name of each server's `pid` tool, and who answers each name, while `ready` are up. */
async function pidToolOwners(
  h: ProxyHandle,
  pidFiles: Record<string, string>,
  toolCount: number,
): Promise<Map<string, string>> {
  const names = await waitFor(
    async () => {
      const tools = (await h.client.listTools()).tools.map((t) => t.name);
      return tools.length === toolCount ? tools : undefined;
    },
    20_000,
    `${toolCount} tools listed`,
  );
  const byPid = new Map(Object.entries(pidFiles).map(([id, f]) => [readFileSync(f, 'utf8').trim(), id]));
  const owners = new Map<string, string>();
  for (const name of names.filter((n) => n.includes('pid'))) {
    const pid = text(await h.client.callTool({ name, arguments: {} }));
    owners.set(name, byPid.get(pid) ?? `unknown pid ${pid}`);
  }
  return owners;
}

it('gives each of two colliding tools one name, answered by its own server, in either start order', async () => {
  const ownerOf = new Map<string, string>();
  const namesOf = new Map<string, Set<string>>();
  for (const first of ['a', 'a__b']) {
    const dir = tempDir();
    dirs.push(dir);
    const gate = (id: string) => join(dir.path, `${id}.go`);
    const pidFile = (id: string) => join(dir.path, `${id}.pid`);
    const entry = (id: string, extra: string[] = []) => ({
      command: process.execPath,
      args: [SLOW, '--gate', gate(id), '--pid-file', pidFile(id), ...extra],
    });
    const servers = { a: entry('a', ['--tool-prefix', 'b__']), a__b: entry('a__b') };
    // Lists do not wait for starting servers: what each shows is what is up at the time.
    const h = await connectProxy([
      '--config',
      JSON.stringify({ mcpServers: servers }),
      '--no-watchdog',
      '--ready-timeout',
      '1',
    ]);
    handles.push(h);
    const second = first === 'a' ? 'a__b' : 'a';
    writeFileSync(gate(first), '');
    const phases = [await pidToolOwners(h, { [first]: pidFile(first) }, 4)];
    writeFileSync(gate(second), '');
    phases.push(await pidToolOwners(h, { a: pidFile('a'), a__b: pidFile('a__b') }, 8));
    for (const [i, owners] of phases.entries()) {
      for (const [name, owner] of owners) {
        expect(ownerOf.get(name) ?? owner, `the owner of ${name} (${first} first, phase ${i + 1})`).toBe(owner);
        ownerOf.set(name, owner);
        namesOf.set(owner, (namesOf.get(owner) ?? new Set()).add(name));
      }
    }
    await h.close();
    handles = [];
  }
  expect([...namesOf.keys()].sort()).toEqual(['a', 'a__b']);
  for (const [owner, names] of namesOf) expect([...names], `the names of ${owner}'s pid tool`).toHaveLength(1);
}, 90_000);
