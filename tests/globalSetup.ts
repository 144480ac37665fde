// Once before any test runs: builds everything (the CLI tests spawn the bundled
// dist/proxy/qiming-mcp-stdio-proxy.cjs, never the TypeScript sources, so they prove the file
// that ships) and finds the Chromium the browser tests use (helpers/chromiumPath.ts), which the
// test workers inherit through the environment. Tool pinning is off for every test that does not
// turn it on, and its pins go to a folder of this run, never the user's. The user's own Secret
// Service is out of reach (a session bus address that leads nowhere): a test that needs a
// keychain starts its own (helpers/secretService.ts), and every other one sees none. The
// registry of running server groups (process/orphanSweep.ts) is a folder of this run too.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESOLVED_ENV, resolveChromium } from './helpers/chromiumPath.js';

export default async function setup(): Promise<() => void> {
  const root = join(import.meta.dirname, '..');
  const pins = mkdtempSync(join(tmpdir(), 'qiming-pins-'));
  process.env.QIMING_PINS_DIR = pins;
  process.env.QIMING_PINNING = 'off';
  const runtime = mkdtempSync(join(tmpdir(), 'qiming-runtime-'));
  process.env.QIMING_MCP_RUNTIME_DIR = join(runtime, 'registry');
  process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/qiming-tests-have-no-session-bus';
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  try {
    const { path, source } = await resolveChromium();
    process.env[RESOLVED_ENV] = path;
    process.stderr.write(`browser tests use Chromium at ${path} (${source})\n`);
  } catch (err) {
    // Only the browser tests need it; they fail with this reason when they look again.
    process.stderr.write(`no Chromium for the browser tests: ${(err as Error).message}\n`);
  }
  return () => {
    rmSync(pins, { recursive: true, force: true });
    rmSync(runtime, { recursive: true, force: true });
  };
}
