// Makes sure Debian command-line tools the tests need are on PATH (Linux only): idempotent (all
// on PATH: nothing is done); missing, as root with apt-get: installs their packages with
// `apt-get install -y --no-install-recommends` (an `apt-get update` first if that fails) and
// says so; otherwise fails, saying what to install. Used by ensureSecretService.mjs and
// ensureSandboxTools.mjs.
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** @param {string} bin */
export function onPath(bin) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, bin), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

/**
 * @param {string} script the calling script's name, for its messages
 * @param {string} purpose what needs the tools ("the secret-store tests")
 * @param {{ bin: string, pkg: string }[]} needed
 * @returns {number} the exit code
 */
export function ensureDebianTools(script, purpose, needed) {
  if (process.platform !== 'linux') return 0;
  const missing = needed.filter((n) => !onPath(n.bin));
  if (missing.length === 0) return 0;
  const pkgs = missing.map((n) => n.pkg);
  const what = missing.map((n) => `${n.bin} (Debian package ${n.pkg})`).join(' and ');
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !onPath('apt-get')) {
    process.stderr.write(
      `${script}: ${purpose} need ${what}, and this script can install them only as root with apt-get.\n` +
        `Install them (e.g. sudo apt-get install -y ${pkgs.join(' ')}) and run the tests again.\n`,
    );
    return 1;
  }
  process.stderr.write(`${script}: installing ${pkgs.join(' ')} with apt-get for ${purpose}\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env });
  } catch {
    // A fresh machine's package lists may be empty: read them once, then try again.
    execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env });
  }
  const still = needed.filter((n) => !onPath(n.bin));
  if (still.length) {
    process.stderr.write(`${script}: still missing after the install: ${still.map((n) => n.bin).join(', ')}\n`);
    return 1;
  }
  return 0;
}
