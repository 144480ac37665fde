// The layering rules live in eslint.config.js; this proves, through ESLint's own API and the
// project's real config, that each of them still fires on an offending line (and stays quiet
// on the allowed ones), so a broken glob or a renamed rule cannot silently switch one off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

/** The rule ids of the errors ESLint reports for `code` as if it were the file `filePath`. */
async function errors(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  return result!.messages.filter((m) => m.severity === 2).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

describe('eslint config: src/proxy is pure Node', () => {
  it.each([
    ["import { app } from 'electron';\nexport { app };", 'no-restricted-imports'],
    ["import log from 'electron-log/main';\nexport { log };", 'no-restricted-imports'],
    ["import 'electron';", 'no-restricted-imports'],
    ["export * from 'electron-log';", 'no-restricted-imports'],
    ["export const e = require('electron');", 'no-restricted-syntax'],
    ["export const e = await import('electron-log');", 'no-restricted-syntax'],
    [
      "import { McpRuntime } from '../../main/runtime/mcpRuntime.js';\nexport { McpRuntime };",
      'import-x/no-restricted-paths',
    ],
  ])('rejects %s', async (code, rule) => {
    expect(await errors(code, 'src/proxy/cli/offender.ts')).toContain(rule);
  });

  it('accepts node builtins and src/shared', async () => {
    expect(
      await errors(
        "import { join } from 'node:path';\nimport { SseParser } from '../../shared/sseParser.js';\nexport { join, SseParser };",
        'src/proxy/cli/fine.ts',
      ),
    ).toEqual([]);
  });
});

describe('eslint config: the protocol layer (src/proxy/protocol)', () => {
  it.each([
    ["import { x } from '../../bridge/rev2026Endpoint.js';\nexport { x };", 'src/proxy/protocol/crossings/offender.ts'],
    ["import { x } from '../modes/convertThroughHub.js';\nexport { x };", 'src/proxy/protocol/offender.ts'],
    ["import { x } from '../protocol/rev2026-07-28/vocabulary.js';\nexport { x };", 'src/proxy/common/offender.ts'],
    ["import { x } from '../protocol/taskShapes.js';\nexport { x };", 'src/proxy/jsonrpc/offender.ts'],
    ["import { x } from '../../main/runtime/mcpRuntime.js';\nexport { x };", 'src/proxy/protocol/offender.ts'],
  ])('rejects %s in %s', async (code, file) => {
    expect(await errors(code, file)).toContain('import-x/no-restricted-paths');
  });

  it('lets the hub, upstream/ and the bridge import it, and it the hub and jsonrpc/', async () => {
    const use = "import { x } from '../protocol/rev2026-07-28/vocabulary.js';\nexport { x };";
    expect(await errors(use, 'src/proxy/hub/fine.ts')).toEqual([]);
    expect(await errors(use, 'src/proxy/bridge/fine.ts')).toEqual([]);
    expect(await errors(use, 'src/proxy/upstream/fine.ts')).toEqual([]);
    expect(
      await errors(
        "import { x } from '../../hub/sessionContracts.js';\nimport { y } from '../../jsonrpc/jsonRpc.js';\nexport { x, y };",
        'src/proxy/protocol/crossings/fine.ts',
      ),
    ).toEqual([]);
  });
});

describe('eslint config: src/proxy writes stdout only through the protocol writer', () => {
  it.each([
    ["process.stdout.write('x');", 'no-restricted-syntax'],
    ['export const out = process.stdout;', 'no-restricted-syntax'],
    ["console.log('x');", 'no-restricted-properties'],
    ["console.info('x');", 'no-restricted-properties'],
  ])('rejects %s', async (code, rule) => {
    expect(await errors(code, 'src/proxy/hub/offender.ts')).toContain(rule);
  });

  it('allows stderr', async () => {
    expect(await errors("console.error('x');\nprocess.stderr.write('y');", 'src/proxy/hub/fine.ts')).toEqual([]);
  });

  it("allows the bridge's readyOut alias, and only that, in bridgeMode.ts", async () => {
    const file = 'src/proxy/modes/bridgeMode.ts';
    expect(await errors("const readyOut = process.stdout;\nreadyOut.write('{}\\n');", file)).toEqual([]);
    expect(await errors("process.stdout.write('x');", file)).toContain('no-restricted-syntax');
    expect(await errors('export const other = process.stdout;', file)).toContain('no-restricted-syntax');
    expect(await errors("console.log('x');", file)).toContain('no-restricted-properties');
  });

  it('allows process.stdout as the protocol writer default output', async () => {
    expect(await errors('export const out = process.stdout;', 'src/proxy/stdio/stdioServerTransport.ts')).toEqual([]);
  });
});

describe('eslint config: electron only in src/main/electron', () => {
  const code = "import { app } from 'electron';\nexport { app };";

  it('rejects electron elsewhere in src/main', async () => {
    expect(await errors(code, 'src/main/runtime/offender.ts')).toContain('no-restricted-imports');
    expect(await errors("export const e = require('electron');", 'src/main/logs/offender.ts')).toContain(
      'no-restricted-syntax',
    );
  });

  it('accepts it in src/main/electron', async () => {
    expect(await errors(code, 'src/main/electron/fine.ts')).toEqual([]);
  });
});

describe('eslint config: src/renderer runs in the page', () => {
  it.each([
    ["import { readFileSync } from 'node:fs';\nexport { readFileSync };", 'import-x/no-nodejs-modules'],
    ["import fs from 'fs';\nexport { fs };", 'import-x/no-nodejs-modules'],
    ["import { ipcRenderer } from 'electron';\nexport { ipcRenderer };", 'no-restricted-imports'],
    ["import { Hub } from '../proxy/hub/hub.js';\nexport { Hub };", 'import-x/no-restricted-paths'],
    [
      "import { McpRuntime } from '../main/runtime/mcpRuntime.js';\nexport { McpRuntime };",
      'import-x/no-restricted-paths',
    ],
  ])('rejects %s', async (code, rule) => {
    expect(await errors(code, 'src/renderer/offender.ts')).toContain(rule);
  });

  it('accepts src/shared', async () => {
    expect(
      await errors(
        "import { SseParser } from '../shared/sseParser.js';\nexport { SseParser };",
        'src/renderer/fine.ts',
      ),
    ).toEqual([]);
  });
});

describe('eslint config: no import cycles in src', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'eslint-cycle-'));
    mkdirSync(join(dir, 'src', 'proxy'), { recursive: true });
    writeFileSync(join(dir, 'src', 'proxy', 'a.ts'), "import { b } from './b.js';\nexport const a = () => b;\n");
    writeFileSync(join(dir, 'src', 'proxy', 'b.ts'), "import { a } from './a.js';\nexport const b = () => a;\n");
    writeFileSync(join(dir, 'src', 'proxy', 'c.ts'), "import { a } from './a.js';\nexport const c = () => a;\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a two-file cycle and not a plain import', async () => {
    const cycleLint = new ESLint({ cwd: dir, overrideConfigFile: join(root, 'eslint.config.js') });
    const results = await cycleLint.lintFiles(['src/proxy/a.ts', 'src/proxy/c.ts']);
    const rules = (name: string) => results.find((r) => r.filePath.endsWith(name))!.messages.map((m) => m.ruleId);
    expect(rules('a.ts')).toContain('import-x/no-cycle');
    expect(rules('c.ts')).not.toContain('import-x/no-cycle');
  });
});

describe('eslint config: src/main reaches the proxy through its index, src/shared stands alone', () => {
  it('rejects a deep proxy import from src/main, accepts the index', async () => {
    expect(
      await errors("import { Hub } from '../../proxy/hub/hub.js';\nexport { Hub };", 'src/main/runtime/offender.ts'),
    ).toContain('import-x/no-restricted-paths');
    expect(
      await errors("import * as proxy from '../../proxy/index.js';\nexport { proxy };", 'src/main/runtime/fine.ts'),
    ).toEqual([]);
  });

  it.each([
    ["import { join } from 'node:path';\nexport { join };", 'import-x/no-nodejs-modules'],
    ["import { app } from 'electron';\nexport { app };", 'no-restricted-imports'],
    ["import { Hub } from '../proxy/hub/hub.js';\nexport { Hub };", 'import-x/no-restricted-paths'],
  ])('src/shared rejects %s', async (code, rule) => {
    expect(await errors(code, 'src/shared/offender.ts')).toContain(rule);
  });
});

describe('eslint config: a file in src/ past 500 code lines is flagged, blank and comment lines not counted', () => {
  /** `code` code lines, each followed by a blank and a comment line, which the guide does not count. */
  const lines = (code: number) =>
    `${Array.from({ length: code }, (_, i) => `export const a${i} = ${i};\n\n// note ${i}`).join('\n')}\n`;

  /** The rule ids of the warnings ESLint reports for `code` as the file `filePath`. */
  async function warnings(code: string, filePath: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
    return result!.messages.filter((m) => m.severity === 1).map((m) => m.ruleId ?? '');
  }

  it.each(['src/proxy/hub/big.ts', 'src/main/logs/big.ts', 'src/renderer/big.ts', 'src/shared/big.ts'])(
    'warns at 501 code lines in %s, not at 500 (with 1,000 blank and comment lines), and never errors',
    async (file) => {
      expect(await warnings(lines(501), file)).toContain('max-lines');
      expect(await errors(lines(501), file)).toEqual([]);
      expect(await warnings(lines(500), file)).toEqual([]);
    },
  );

  it('does not apply outside src/', async () => {
    expect(await warnings(lines(600), 'tests/proxy/big.test.ts')).not.toContain('max-lines');
  });
});

describe("eslint config: this repository's app uses only the package's public entries", () => {
  it.each([
    "import { McpRuntime } from '../runtime/mcpRuntime.js';\nexport { McpRuntime };",
    "import { attachToApp } from '../app/attachToApp.js';\nexport { attachToApp };",
    "import { IPC_CHANNELS } from '../../shared/ipcContract.js';\nexport { IPC_CHANNELS };",
    "import { sweepOrphans } from '../../proxy/index.js';\nexport { sweepOrphans };",
    "import { startPanel } from '../../renderer/startPanel.js';\nexport { startPanel };",
  ])('src/main/electron rejects %s', async (code) => {
    expect(await errors(code, 'src/main/electron/offender.ts')).toContain('import-x/no-restricted-paths');
  });

  it('src/main/electron accepts the entries, electron, electron-log and node modules', async () => {
    const code = [
      "import { app } from 'electron';",
      "import log from 'electron-log/main';",
      "import { join } from 'node:path';",
      "import { McpRuntime } from '../../index/main.js';",
      "import { exposeMcpRuntime } from '../../index/preload.js';",
      "import { resolveRuntimePaths } from '../../index/cli.js';",
      'export { app, log, join, McpRuntime, exposeMcpRuntime, resolveRuntimePaths };',
    ].join('\n');
    expect(await errors(code, 'src/main/electron/fine.ts')).toEqual([]);
  });

  it('the rest of src/main does not import the entries', async () => {
    expect(
      await errors(
        "import { McpRuntime } from '../../index/main.js';\nexport { McpRuntime };",
        'src/main/runtime/offender.ts',
      ),
    ).toContain('import-x/no-restricted-paths');
  });
});

describe('eslint config: the public entries never load electron at load time', () => {
  it.each([
    ["import { app } from 'electron';\nexport { app };", 'src/index/main.ts', 'no-restricted-imports'],
    ["export const e = require('electron');", 'src/index/main.ts', 'no-restricted-syntax'],
    ["import log from 'electron-log/main';\nexport { log };", 'src/index/preload.ts', 'no-restricted-imports'],
    ["export const e = await import('electron');", 'src/index/preload.ts', 'no-restricted-syntax'],
    ["import { join } from 'node:path';\nexport { join };", 'src/index/panel.ts', 'import-x/no-nodejs-modules'],
    [
      "import { McpRuntime } from '../main/runtime/mcpRuntime.js';\nexport { McpRuntime };",
      'src/index/panel.ts',
      'import-x/no-restricted-paths',
    ],
  ])('rejects %s in %s', async (code, file, rule) => {
    expect(await errors(code, file)).toContain(rule);
  });

  it("lets preload.ts require('electron') lazily", async () => {
    // eslint's own no-require-imports is switched off where it is used, with a comment.
    const code =
      "// eslint-disable-next-line @typescript-eslint/no-require-imports\nexport const load = () => require('electron');";
    expect(await errors(code, 'src/index/preload.ts')).toEqual([]);
  });
});
