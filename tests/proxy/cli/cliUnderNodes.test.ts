// The CLI under each Node the README names (22.15 and later: 22, 24 as Electron 43-45 ship it,
// 26), each from npm node@<major> (scripts/ensureNode.mjs): `--version`, then a stdio
// aggregation of the memory server, run by the same Node, that lists its tools and answers a call.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CLI, connectProxy, ensureBuilt, MEMORY, tempDir, type ProxyHandle } from '../../helpers/proxyCli.js';
import { nodeBinary } from '../../helpers/nodeBinaries.js';
import { text } from '../../helpers/toolText.js';
import { ROOT } from '../../helpers/paths.js';

const NODES = [22, 24, 26];
const VERSION = JSON.parse(
  execFileSync(process.execPath, ['-p', `JSON.stringify(require('${join(ROOT, 'package.json')}').version)`], {
    encoding: 'utf8',
  }),
) as string;

const open: ProxyHandle[] = [];
const dirs: { remove: () => void }[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const p of open.splice(0)) await p.close();
  for (const d of dirs.splice(0)) d.remove();
});

describe('the CLI under each Node the README names', () => {
  for (const major of NODES)
    it(`Node ${major}: --version, and a stdio aggregation that lists and calls`, async () => {
      const node = nodeBinary(major);
      expect(execFileSync(node, ['--version'], { encoding: 'utf8' })).toMatch(new RegExp(`^v${major}\\.`));
      // The version goes to stderr: stdout carries protocol bytes only.
      const version = spawnSync(node, [CLI, '--version'], { encoding: 'utf8' });
      expect(version.status).toBe(0);
      expect(version.stderr.trim()).toBe(VERSION);
      const dir = tempDir('qiming-nodes-');
      dirs.push(dir);
      const config = {
        mcpServers: {
          memory: { command: node, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir.path, 'memory.jsonl') } },
        },
      };
      const proxy = await connectProxy(['--config', JSON.stringify(config)], {}, {}, node);
      open.push(proxy);
      const { tools } = await proxy.client.listTools();
      const create = tools.find((t) => t.name.endsWith('create_entities'));
      expect(create, JSON.stringify(tools.map((t) => t.name))).toBeDefined();
      const read = tools.find((t) => t.name.endsWith('read_graph'))!;
      await proxy.client.callTool({
        name: create!.name,
        arguments: { entities: [{ name: `node${major}`, entityType: 'runtime', observations: ['ran'] }] },
      });
      expect(text(await proxy.client.callTool({ name: read.name, arguments: {} }))).toContain(`node${major}`);
    }, 150_000);
});
