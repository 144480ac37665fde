// Helpers of the packaging tests: electron-builder.yml as data, and a real
// `electron-builder --dir` run offline against a stand-in Electron distribution.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { scaled } from '../helpers/loadScale.js';

export const ROOT = join(import.meta.dirname, '..', '..');
export const BUILDER_YML = join(ROOT, 'electron-builder.yml');

const require = createRequire(import.meta.url);
// js-yaml is what electron-builder itself reads its YAML config with.
const yaml = require('js-yaml') as { load(text: string): unknown };

/** electron-builder.yml parsed (the same YAML reader electron-builder uses). */
export function loadBuilderConfig(): Record<string, unknown> {
  return yaml.load(readFileSync(BUILDER_YML, 'utf8')) as Record<string, unknown>;
}

/** The fuse sentinel @electron/fuses looks for in the Electron binary. */
const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
/**
 * Electron's shipped fuse wire (fuse wire v1, 8 fuses, '1' on / '0' off): runAsNode on,
 * cookie encryption off, NODE_OPTIONS on, --inspect on, asar integrity off, only-asar off,
 * browser V8 snapshot off, file:// privileges on.
 */
export const STOCK_FUSE_WIRE = '10110001';

/**
 * A stand-in for an unpacked Electron distribution (what electron-builder would download):
 * an `electron` "binary" that carries a real fuse wire, so electron-builder's fuse step runs
 * on it for real, plus the files electron-builder copies.
 */
export function makeFakeElectronDist(dir: string): string {
  mkdirSync(join(dir, 'resources'), { recursive: true });
  const wire = Buffer.concat([
    Buffer.from(`#!/bin/sh\n# ${FUSE_SENTINEL}`),
    Buffer.from([1, STOCK_FUSE_WIRE.length]),
    Buffer.from(`${STOCK_FUSE_WIRE}\nexit 1\n`),
  ]);
  writeFileSync(join(dir, 'electron'), wire);
  chmodSync(join(dir, 'electron'), 0o755);
  const electronPkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'electron', 'package.json'), 'utf8')) as {
    version: string;
  };
  writeFileSync(join(dir, 'version'), electronPkg.version);
  writeFileSync(join(dir, 'LICENSE'), 'stand-in\n');
  writeFileSync(join(dir, 'LICENSES.chromium.html'), '<p>stand-in</p>\n');
  return dir;
}

export interface PackResult {
  /** `<out>/linux-unpacked` (or `linux-<arch>-unpacked`). */
  appDir: string;
  resources: string;
  /** electron-builder's output, for failure messages. */
  log: string;
}

/**
 * Runs the real electron-builder CLI (`--linux dir`) on this project with electron-builder.yml,
 * overriding only where Electron comes from and where the output goes. Needs no network:
 * no download (electronDist), no native rebuild (npmRebuild: false in the config).
 */
export function packDir(opts: {
  electronDist: string;
  outDir: string;
  extraArgs?: string[];
  timeoutMs?: number;
}): Promise<PackResult> {
  const args = [
    join(ROOT, 'node_modules', 'electron-builder', 'cli.js'),
    '--linux',
    'dir',
    '--publish',
    'never',
    '--projectDir',
    ROOT,
    `-c.electronDist=${opts.electronDist}`,
    `-c.directories.output=${opts.outDir}`,
    ...(opts.extraArgs ?? []),
  ];
  // The bound is for a hang, not a measure: stretched on a loaded machine (loadScale.ts).
  const timeout = scaled(opts.timeoutMs ?? 90_000);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { cwd: ROOT, timeout, maxBuffer: 16 << 20, env: { ...process.env, CI: '1' } },
      (err, stdout, stderr) => {
        const log = `${stdout}\n${stderr}`;
        const why = err?.killed ? `stopped at its ${timeout} ms bound (${err.signal})` : err?.message;
        if (err) return reject(new Error(`electron-builder failed: ${why}\n${log.slice(-4000)}`));
        const unpacked = readdirSync(opts.outDir).find((d) => /^linux(-[a-z0-9]+)?-unpacked$/.test(d));
        if (!unpacked) return reject(new Error(`no linux-*-unpacked folder in ${opts.outDir}\n${log.slice(-4000)}`));
        const appDir = join(opts.outDir, unpacked);
        resolve({ appDir, resources: join(appDir, 'resources'), log });
      },
    );
  });
}

/** Every file (not folder) below `dir`, as `/`-separated paths relative to it. */
export function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(join(dir, e.name), rel));
    else out.push(rel);
  }
  return out.sort();
}
