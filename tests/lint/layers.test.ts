// Lint as a test: src/proxy never imports electron and never writes to stdout except
// through the protocol transport; src/renderer never imports electron or node:*.
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else if (/\.(ts|mts|cts|js|mjs)$/.test(name)) out.push(p);
  }
  return out;
}

function offending(dir: string, pattern: RegExp, allow: (file: string, line: string) => boolean = () => false) {
  const hits: string[] = [];
  for (const file of filesUnder(join(root, dir))) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const code = line.replace(/\/\/.*$/, '');
        if (pattern.test(code) && !allow(file, line)) hits.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  return hits;
}

describe('layering lint', () => {
  it('src/proxy never imports electron or electron-log', () => {
    expect(offending('src/proxy', /from\s+['"]electron(-log)?(\/[^'"]*)?['"]|require\(\s*['"]electron|import\(\s*['"]electron/)).toEqual([]);
  });

  it('src/proxy never writes to stdout outside the protocol writer', () => {
    // The only stdout writes allowed are protocol bytes, through an injected Writable.
    expect(offending('src/proxy', /console\.(log|info|debug|table|dir)\s*\(|process\.stdout\.write\s*\(/)).toEqual([]);
  });

  it('src/proxy imports no other src layer', () => {
    expect(offending('src/proxy', /from\s+['"]\.\.\/(\.\.\/)*(main|renderer)\//)).toEqual([]);
  });

  it('in src/main only src/main/electron imports electron', () => {
    const electron = /from\s+['"]electron(\/[^'"]*)?['"]|require\(\s*['"]electron['"]|import\(\s*['"]electron['"]/;
    const hits = offending('src/main', electron).filter((hit) => !hit.startsWith('src/main/electron/'));
    expect(hits).toEqual([]);
    expect(offending('src/main/electron', electron).length).toBeGreaterThan(0);
  });

  it('src/renderer never imports electron or node builtins', () => {
    expect(offending('src/renderer', /from\s+['"](electron|node:[a-z_/]+)['"]/)).toEqual([]);
  });

  it('the lint itself catches an offending line', () => {
    expect(/console\.(log|info|debug|table|dir)\s*\(|process\.stdout\.write\s*\(/.test('process.stdout.write(x)')).toBe(true);
  });
});
