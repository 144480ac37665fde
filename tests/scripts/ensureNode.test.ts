// scripts/ensureNode.mjs: a Node binary of one major from npm node@<major> in .cache/node<major>
// (installed when absent), or $QIMING_NODE<major>; a wrong override is refused with a clear
// message, not used. scripts/ensureNode22.mjs is the one for 22 (the conformance suite).
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { node22, nodeBinary } from '../helpers/nodeBinaries.js';

const SCRIPT = join(ROOT, 'scripts', 'ensureNode22.mjs');
const ANY = join(ROOT, 'scripts', 'ensureNode.mjs');

describe('ensureNode', () => {
  it('prints the path of a Node 24 binary for `24`, the one the helper returns; refuses a bad major', () => {
    const env = { ...process.env };
    delete env.QIMING_NODE24;
    const printed = execFileSync(process.execPath, [ANY, '24'], { encoding: 'utf8', env, timeout: 120_000 }).trim();
    expect(printed).toBe(join(ROOT, '.cache', 'node24', 'node_modules', '.bin', 'node'));
    expect(execFileSync(printed, ['--version'], { encoding: 'utf8' })).toMatch(/^v24\./);
    if (!process.env.QIMING_NODE24) expect(nodeBinary(24)).toBe(printed);
    const bad = spawnSync(process.execPath, [ANY, 'latest'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('usage: node scripts/ensureNode.mjs <major>');
  }, 150_000);

  it('prints the path of a Node 22 binary, and the helper returns the same one', () => {
    const env = { ...process.env };
    delete env.QIMING_NODE22;
    const printed = execFileSync(process.execPath, [SCRIPT], { encoding: 'utf8', env, timeout: 120_000 }).trim();
    expect(printed).toBe(join(ROOT, '.cache', 'node22', 'node_modules', '.bin', 'node'));
    expect(execFileSync(printed, ['--version'], { encoding: 'utf8' })).toMatch(/^v22\./);
    if (!process.env.QIMING_NODE22) expect(node22()).toBe(printed);
  }, 150_000);

  it('QIMING_NODE22 overrides it; one that is not Node 22 is refused in one line, exit 1', () => {
    const ok = execFileSync(process.execPath, [SCRIPT], {
      encoding: 'utf8',
      env: { ...process.env, QIMING_NODE22: node22() },
    }).trim();
    expect(ok).toBe(node22());
    const bad = spawnSync(process.execPath, [SCRIPT], {
      encoding: 'utf8',
      env: { ...process.env, QIMING_NODE22: process.execPath },
    });
    if (process.versions.node.startsWith('22.')) return; // the runner itself is Node 22: nothing to refuse
    expect(bad.status).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trim()).toBe(`QIMING_NODE22=${process.execPath} is not a Node 22 binary`);
  });
});
