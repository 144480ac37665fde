// Builds everything once before any test runs: the CLI tests spawn the bundled
// dist/proxy/qiming-mcp-stdio-proxy.cjs, never the TypeScript sources, so they prove
// the file that ships.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export default function setup(): void {
  const root = join(import.meta.dirname, '..');
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
}
