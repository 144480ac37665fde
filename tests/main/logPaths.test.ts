// The proxy log's one path function and the start-up rotation, on real files.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { PROXY_LOG_FILE_NAME, proxyLogFilePath, rotateIfLarge } from '../../src/main/logs/logPaths.js';

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('proxyLogFilePath', () => {
  it('is an absolute path to the fixed name inside the logs folder', () => {
    expect(proxyLogFilePath('/var/log/app')).toBe(join('/var/log/app', PROXY_LOG_FILE_NAME));
    const rel = proxyLogFilePath('some/logs');
    expect(isAbsolute(rel)).toBe(true);
    expect(rel).toBe(join(resolve('some/logs'), PROXY_LOG_FILE_NAME));
  });
});

describe('rotateIfLarge', () => {
  it('leaves a missing or small file alone', () => {
    dir = mkdtempSync(join(tmpdir(), 'logpaths-'));
    const file = join(dir, 'p.log');
    expect(rotateIfLarge(file, 10)).toBe(false);
    writeFileSync(file, '0123456789');
    expect(rotateIfLarge(file, 10)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('0123456789');
    expect(existsSync(`${file}.1`)).toBe(false);
  });

  it('moves a large file to <path>.1, replacing an older one', () => {
    dir = mkdtempSync(join(tmpdir(), 'logpaths-'));
    const file = join(dir, 'p.log');
    writeFileSync(`${file}.1`, 'very old');
    writeFileSync(file, 'more than ten bytes');
    expect(rotateIfLarge(file, 10)).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(`${file}.1`, 'utf8')).toBe('more than ten bytes');
  });
});
