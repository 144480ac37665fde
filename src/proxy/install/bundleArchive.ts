/**
 * A `.mcpb` bundle (a zip) read with yauzl and unpacked with every entry checked first:
 * no absolute path, no `..`, no backslash or drive letter, no symlink or other special file
 * (the Unix mode in the external attributes), at most MAX_ENTRIES entries, no entry over
 * MAX_ENTRY_BYTES, at most MAX_TOTAL_BYTES in all, and no entry that expands more than
 * MAX_RATIO times (a zip bomb). Sizes are counted again while inflating (yauzl's
 * validateEntrySizes), so a header that lies is caught too. It unpacks into a fresh folder
 * beside the target and renames it into place: a refused bundle leaves nothing behind.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { MAX_BUNDLE_BYTES } from '../../shared/install.js';
import { InstallError } from './installError.js';

export { MAX_BUNDLE_BYTES };
export const MAX_ENTRIES = 5_000;
export const MAX_ENTRY_BYTES = 64 * 1024 * 1024;
export const MAX_TOTAL_BYTES = 256 * 1024 * 1024;
export const MAX_RATIO = 200;
const MAX_MANIFEST_BYTES = 1024 * 1024;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

export interface BundleLimits {
  maxEntries: number;
  maxEntryBytes: number;
  maxTotalBytes: number;
  maxRatio: number;
}
export const DEFAULT_LIMITS: BundleLimits = {
  maxEntries: MAX_ENTRIES,
  maxEntryBytes: MAX_ENTRY_BYTES,
  maxTotalBytes: MAX_TOTAL_BYTES,
  maxRatio: MAX_RATIO,
};

export interface BundleContents {
  /** manifest.json, parsed. */
  manifest: unknown;
  sha256: string;
  files: number;
  totalBytes: number;
}

/** Why an entry's name is unsafe, or undefined. */
export function unsafeName(name: string): string | undefined {
  if (name === '') return 'an empty name';
  if (name.includes('\\')) return 'a backslash';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  if (name.split('/').some((part) => part === '..')) return 'a ".." part';
  if (name.includes('\0')) return 'a NUL character';
  return undefined;
}

function open(buffer: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true }, (err, zip) => {
      if (err) reject(new InstallError(`not a valid bundle (zip): ${err.message}`));
      else resolve(zip);
    });
  });
}

function nameOf(entry: yauzl.Entry): string {
  return Buffer.isBuffer(entry.fileName) ? (entry.fileName as Buffer).toString('utf8') : String(entry.fileName);
}

/** Checks one entry against the rules; returns its name and whether it is a folder. */
function checkEntry(entry: yauzl.Entry, limits: BundleLimits, total: { bytes: number; count: number }) {
  const name = nameOf(entry);
  const why = unsafeName(name);
  if (why) throw new InstallError(`the bundle is refused: the entry "${name}" has ${why}`);
  const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
  const isDir = name.endsWith('/');
  if (mode === 0o120000) throw new InstallError(`the bundle is refused: the entry "${name}" is a symbolic link`);
  if (mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR)
    throw new InstallError(`the bundle is refused: the entry "${name}" is not a regular file or folder`);
  if (++total.count > limits.maxEntries)
    throw new InstallError(`the bundle is refused: more than ${limits.maxEntries} entries`);
  if (entry.uncompressedSize > limits.maxEntryBytes)
    throw new InstallError(`the bundle is refused: "${name}" is over ${limits.maxEntryBytes} bytes unpacked`);
  total.bytes += entry.uncompressedSize;
  if (total.bytes > limits.maxTotalBytes)
    throw new InstallError(`the bundle is refused: over ${limits.maxTotalBytes} bytes unpacked in all`);
  if (
    entry.uncompressedSize > 1024 * 1024 &&
    entry.uncompressedSize > limits.maxRatio * Math.max(1, entry.compressedSize)
  )
    throw new InstallError(`the bundle is refused: "${name}" expands more than ${limits.maxRatio} times (a zip bomb)`);
  return { name, isDir };
}

function readStream(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream)));
  });
}

async function readAll(stream: NodeJS.ReadableStream, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > max) throw new InstallError('the bundle is refused: manifest.json is too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Walks every entry with the checks, calling `each` for it; the zip is closed at the end. */
async function walk(
  buffer: Buffer,
  limits: BundleLimits,
  each: (zip: yauzl.ZipFile, entry: yauzl.Entry, name: string, isDir: boolean) => Promise<void>,
): Promise<{ count: number; bytes: number }> {
  if (buffer.length > MAX_BUNDLE_BYTES) throw new InstallError(`the bundle is refused: over ${MAX_BUNDLE_BYTES} bytes`);
  const zip = await open(buffer);
  const total = { bytes: 0, count: 0 };
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (err: unknown) =>
        reject(
          err instanceof InstallError ? err : new InstallError(`the bundle cannot be read: ${(err as Error).message}`),
        );
      zip.on('error', fail);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        try {
          const { name, isDir } = checkEntry(entry, limits, total);
          each(zip, entry, name, isDir).then(() => zip.readEntry(), fail);
        } catch (err) {
          fail(err);
        }
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return total;
}

/** Reads and checks the bundle without writing anything: its manifest and its size. */
export async function inspectBundle(buffer: Buffer, limits: BundleLimits = DEFAULT_LIMITS): Promise<BundleContents> {
  let manifestText: Buffer | undefined;
  const total = await walk(buffer, limits, async (zip, entry, name) => {
    if (name === 'manifest.json') manifestText = await readAll(await readStream(zip, entry), MAX_MANIFEST_BYTES);
  });
  if (!manifestText) throw new InstallError('the bundle has no manifest.json at its top level');
  let manifest: unknown;
  try {
    manifest = JSON.parse(manifestText.toString('utf8'));
  } catch {
    throw new InstallError("the bundle's manifest.json is not JSON");
  }
  const sha256 = createHash('sha256').update(buffer).digest('hex');
  return { manifest, sha256, files: total.count, totalBytes: total.bytes };
}

/** Unpacks the bundle into `dest` (which must not exist yet); nothing is left on failure. */
export async function unpackBundle(buffer: Buffer, dest: string, limits: BundleLimits = DEFAULT_LIMITS): Promise<void> {
  mkdirSync(dirname(dest), { recursive: true });
  const work = `${dest}.partial-${randomBytes(4).toString('hex')}`;
  mkdirSync(work, { mode: 0o700 });
  try {
    await walk(buffer, limits, async (zip, entry, name, isDir) => {
      const target = join(work, ...name.split('/').filter((p) => p !== '' && p !== '.'));
      if (!target.startsWith(work)) throw new InstallError(`the bundle is refused: "${name}" leaves its folder`);
      if (isDir) {
        mkdirSync(target, { recursive: true });
        return;
      }
      mkdirSync(dirname(target), { recursive: true });
      const mode = (entry.externalFileAttributes >>> 16) & 0o777;
      const stream = await readStream(zip, entry);
      await pipeline(stream, createWriteStream(target, { flags: 'wx', mode: mode & 0o100 ? 0o700 : 0o600 }));
    });
    renameSync(work, dest);
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    if (err instanceof InstallError) throw err;
    throw new InstallError(`the bundle cannot be unpacked: ${(err as Error).message}`);
  }
}
