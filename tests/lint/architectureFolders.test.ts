// docs/ARCHITECTURE.md names every folder of src/ (its folder table), so a new folder cannot
// arrive without a line that says what it holds; and every src/ folder it names exists.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../helpers/paths.js';

/** Every folder below `dir`, as `src/...` paths. */
function folders(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (!statSync(full).isDirectory()) continue;
    out.push(relative(ROOT, full), ...folders(full));
  }
  return out;
}

const architecture = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');

describe('docs/ARCHITECTURE.md and the folders of src/', () => {
  it('names every folder of src/', () => {
    const src = folders(join(ROOT, 'src'));
    expect(src.length).toBeGreaterThan(20);
    expect(src.filter((f) => !architecture.includes(`\`${f}/\``))).toEqual([]);
  });

  it('names no src/ folder that does not exist', () => {
    const named = [...architecture.matchAll(/`(src\/[\w/.-]+)\/`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(20);
    const existing = new Set(folders(join(ROOT, 'src')));
    expect([...new Set(named)].filter((f) => !existing.has(f))).toEqual([]);
  });
});
