import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, inspectBundle, unpackBundle } from '../../../src/proxy/install/bundleArchive.js';
import { bundleCommand, checkManifest } from '../../../src/proxy/install/bundleManifest.js';
import { InstallError } from '../../../src/proxy/install/installError.js';
import { fixed, realText } from '../../../src/proxy/install/planText.js';
import { buildZip, greeterBundle, greeterManifest, renameEntry } from '../../fixtures/registry/bundles.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'qiming-bundle-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InstallError);
  return (err as Error).message;
}

describe('a .mcpb bundle', () => {
  it('is inspected without writing, then unpacked with its files', async () => {
    const zip = await greeterBundle();
    const contents = await inspectBundle(zip);
    expect(contents.files).toBe(3);
    expect(contents.sha256).toMatch(/^[a-f0-9]{64}$/);
    const m = checkManifest(contents.manifest);
    expect(m.name).toBe('greeter');
    const dest = join(tempDir(), 'bundles', 'greeter');
    await unpackBundle(zip, dest);
    expect(readFileSync(join(dest, 'server/index.js'), 'utf8')).toContain('bundled-greeter');
    expect(JSON.parse(readFileSync(join(dest, 'package.json'), 'utf8')).type).toBe('commonjs');
    expect(readdirSync(join(dest, '..'))).toEqual(['greeter']);
  });

  it('fills ${__dirname} and ${user_config.x}, and names a required field left empty', async () => {
    const m = checkManifest(greeterManifest());
    const filled = bundleCommand(m, fixed('/data/bundles/greeter'), { token: 's3cret' });
    expect(realText(filled.command)).toBe('node');
    expect(filled.args.map(realText)).toEqual(['/data/bundles/greeter/server/index.js']);
    expect(filled.env.GREETING_STYLE).toEqual([{ text: 'warm' }]);
    expect(filled.env.GREETER_TOKEN).toEqual([{ text: 's3cret', secret: 'token' }]);
    expect(filled.missing).toEqual([]);
    expect(bundleCommand(m, fixed('/d'), {}).missing).toEqual(['API token']);
  });

  it('refuses an entry with a ../ path and leaves nothing behind', async () => {
    const good = await buildZip([
      { name: 'manifest.json', data: JSON.stringify(greeterManifest()) },
      { name: 'aa/evil.js', data: 'x' },
    ]);
    const zip = renameEntry(good, 'aa/evil.js', '../evil.js');
    expect(await refusal(inspectBundle(zip))).toMatch(/"\.\.\/evil\.js" has a "\.\." part/);
    const root = tempDir();
    expect(await refusal(unpackBundle(zip, join(root, 'b')))).toMatch(/"\.\." part/);
    expect(readdirSync(root)).toEqual([]);
    expect(existsSync(join(root, '..', 'evil.js'))).toBe(false);
  });

  it('refuses an absolute path', async () => {
    const good = await buildZip([
      { name: 'manifest.json', data: JSON.stringify(greeterManifest()) },
      { name: 'etc/passwd.x', data: 'x' },
    ]);
    const zip = renameEntry(good, 'etc/passwd.x', '/tmp/pwned.x');
    expect(await refusal(inspectBundle(zip))).toMatch(/"\/tmp\/pwned\.x" has an absolute path/);
  });

  it('refuses a symbolic link entry', async () => {
    const zip = await buildZip([
      { name: 'manifest.json', data: JSON.stringify(greeterManifest()) },
      { name: 'server/link', data: '/etc/passwd', mode: 0o120777 },
    ]);
    const root = tempDir();
    expect(await refusal(unpackBundle(zip, join(root, 'b')))).toMatch(/"server\/link" is a symbolic link/);
    expect(readdirSync(root)).toEqual([]);
  });

  it('refuses an oversized entry, too many bytes in all, and a zip bomb', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 0x61);
    const zip = await buildZip([
      { name: 'manifest.json', data: JSON.stringify(greeterManifest()) },
      { name: 'server/big.bin', data: big },
    ]);
    expect(await refusal(inspectBundle(zip, { ...DEFAULT_LIMITS, maxEntryBytes: 1024 * 1024 }))).toMatch(
      /"server\/big\.bin" is over 1048576 bytes unpacked/,
    );
    expect(await refusal(inspectBundle(zip, { ...DEFAULT_LIMITS, maxTotalBytes: 2 * 1024 * 1024 }))).toMatch(
      /over 2097152 bytes unpacked in all/,
    );
    // 3 MiB of one byte deflates to a few KiB: over the ratio.
    expect(await refusal(inspectBundle(zip))).toMatch(/expands more than 200 times \(a zip bomb\)/);
  });

  it('refuses too many entries, a missing manifest and a file that is not a zip', async () => {
    const many = await buildZip(
      Array.from({ length: 12 }, (_, i) => ({ name: i === 0 ? 'manifest.json' : `f${i}`, data: '{}' })),
    );
    expect(await refusal(inspectBundle(many, { ...DEFAULT_LIMITS, maxEntries: 10 }))).toMatch(/more than 10 entries/);
    const none = await buildZip([{ name: 'server/index.js', data: 'x' }]);
    expect(await refusal(inspectBundle(none))).toMatch(/no manifest\.json/);
    expect(await refusal(inspectBundle(Buffer.from('not a zip at all')))).toMatch(/not a valid bundle \(zip\)/);
  });

  it('refuses a manifest of another version or without its server', () => {
    expect(() => checkManifest(greeterManifest({ manifest_version: '9.9' }))).toThrow(
      /manifest_version must be one of/,
    );
    expect(() => checkManifest(greeterManifest({ server: undefined }))).toThrow(/server is required/);
  });

  it('unpacks files private to the user', async () => {
    const dest = join(tempDir(), 'g');
    await unpackBundle(await greeterBundle(), dest);
    expect(statSync(join(dest, 'server/index.js')).mode & 0o077).toBe(0);
  });
});
