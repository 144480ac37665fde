// electron-builder.yml against the JSON schema app-builder-lib ships (the one electron-builder
// validates with), and the decisions in it: file rules, unpacked runtime files, fuses,
// targets. What those rules produce on disk is checked in packagedApp.test.ts.
import { describe, expect, it } from 'vitest';
import AjvModule from 'ajv';
import { minimatch } from 'minimatch';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILDER_YML, ROOT, loadBuilderConfig } from './packaging.js';
import { resolveRuntimePaths } from '../../src/main/runtime/resourcePaths.js';

// ajv is CommonJS; its class is also its `default` export, which is what TypeScript sees.
const Ajv = AjvModule.default;
const schema = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'app-builder-lib', 'scheme.json'), 'utf8')) as object;

/** A validator for the schema. Its one custom keyword, `typeof` (for hook functions), is implemented. */
function compile() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addKeyword({
    keyword: 'typeof',
    schemaType: 'string',
    validate: (type: string, data: unknown) => typeof data === type,
  });
  return ajv.compile(schema);
}

// The parsed YAML, read field by field after the schema check.
type Cfg = Record<string, any>;

describe('electron-builder.yml', () => {
  const validate = compile();
  const config = loadBuilderConfig() as Cfg;

  it("is valid against app-builder-lib's scheme.json", () => {
    const ok = validate(config);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the validator catches mistakes (misspelled fuse, wrong type, unknown key)', () => {
    expect(validate({ ...config, electronFuses: { ...config.electronFuses, runAsNod: true } })).toBe(false);
    expect(validate({ ...config, asar: 'yes' })).toBe(false);
    expect(validate({ ...config, mac: { ...config.mac, hardenedRuntim: true } })).toBe(false);
    expect(validate({ ...config, filez: ['dist/**'] })).toBe(false);
  });

  it('ships built output only: package.json and dist/**, no sources, tests, maps or TypeScript', () => {
    const files = config.files as string[];
    const includes = files.filter((f) => !f.startsWith('!'));
    expect(includes.sort()).toEqual(['dist/**', 'package.json']);
    // A path is shipped when the last pattern matching it is an include.
    const shipped = (p: string) => {
      let result = false;
      for (const f of files) {
        const neg = f.startsWith('!');
        if (minimatch(p, neg ? f.slice(1) : f, { dot: true })) result = !neg;
      }
      return result;
    };
    for (const p of [
      'package.json',
      'dist/proxy/qiming-mcp-stdio-proxy.cjs',
      'dist/servers/memory.mjs',
      'dist/renderer/index.html',
      'dist/main/main.cjs',
      'dist/main/preload.cjs',
    ]) {
      expect(shipped(p), p).toBe(true);
    }
    for (const p of [
      'src/main/electron/main.ts',
      'src/proxy/cli/main.ts',
      'tests/packaging/builderConfig.test.ts',
      'bench/run.mjs',
      'scripts/build.mjs',
      'dist/proxy/qiming-mcp-stdio-proxy.cjs.map',
      'dist/main/main.cjs.map',
      'dist/renderer/panel.js.map',
      'dist/main/types.d.ts',
      'dist/index/main.js',
      'dist/types/index/main.d.ts',
      'node_modules/zod/index.js',
      'node_modules/@modelcontextprotocol/sdk/package.json',
      'node_modules/zod/src/index.ts',
      'node_modules/x/index.js.map',
      'node_modules/x/README.md',
      'node_modules/x/test/a.js',
      'electron-builder.yml',
      'tsconfig.json',
      'vitest.config.ts',
      'README.md',
      'docs/x.md',
    ]) {
      expect(shipped(p), p).toBe(false);
    }
  });

  it('unpacks exactly the files other processes run, where resourcePaths.ts looks for them', () => {
    expect(config.asar).toBe(true);
    const unpack = config.asarUnpack as string[];
    const paths = resolveRuntimePaths({ isPackaged: true, resourcesPath: '/r', appPath: '/r/app.asar' });
    const rel = (p: string) => p.replace('/r/app.asar.unpacked/', '');
    for (const p of [rel(paths.cliPath), rel(paths.defaultServers.memory), rel(paths.defaultServers.filesystem)]) {
      expect(p.startsWith('dist/'), p).toBe(true);
      expect(
        unpack.some((u) => minimatch(p, u)),
        p,
      ).toBe(true);
    }
    // The panel (loaded by Electron from the archive) and main stay packed.
    for (const p of ['dist/renderer/index.html', 'dist/main/main.cjs', 'package.json'])
      expect(
        unpack.some((u) => minimatch(p, u)),
        p,
      ).toBe(false);
  });

  it('keeps the runAsNode fuse on, says why next to it, and hardens the others', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
      enableCookieEncryption: true,
      grantFileProtocolExtraPrivileges: false,
    });
    const lines = readFileSync(BUILDER_YML, 'utf8').split('\n');
    const at = lines.findIndex((l) => /^\s+runAsNode:\s*true\b/.test(l));
    let comment = '';
    for (let i = at - 1; i >= 0 && lines[i]!.trim().startsWith('#'); i--) comment = `${lines[i]} ${comment}`;
    expect(comment).toContain('ELECTRON_RUN_AS_NODE');
    expect(comment).toMatch(/must stay on/i);
  });

  it('targets AppImage + deb, dmg with hardened runtime and JIT entitlements, nsis', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.linux.maintainer).toMatch(/<.+@.+>/);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.mac.hardenedRuntime).toBe(true);
    const entitlements = readFileSync(join(ROOT, config.mac.entitlements as string), 'utf8');
    expect(entitlements).toContain('<key>com.apple.security.cs.allow-jit</key>');
    expect(config.mac.entitlementsInherit).toBe(config.mac.entitlements);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.appId).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
    expect(typeof config.productName).toBe('string');
  });

  it('associates .mcpb files with the app, which opens them on their consent', () => {
    expect(config.fileAssociations).toEqual([
      {
        ext: 'mcpb',
        name: 'MCP Bundle',
        description: 'MCP server bundle',
        mimeType: 'application/x-mcpb',
        role: 'Viewer',
      },
    ]);
  });

  it('writes installers to release/ (ignored by git), reads build resources from build/', () => {
    expect(config.directories).toEqual({ output: 'release', buildResources: 'build' });
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8').split('\n')).toContain('release/');
    expect(existsSync(join(ROOT, 'build'))).toBe(true);
  });
});
