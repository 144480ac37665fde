#!/usr/bin/env node
// Makes sure the tests can run a private Secret Service (the OS keychain of Linux), which the
// `${secret:...}` tests start per file (tests/helpers/secretService.ts): `dbus-run-session`
// (Debian package `dbus`) and `gnome-keyring-daemon` (package `gnome-keyring`). Idempotent:
// when both are on PATH, nothing is done. Missing, as root with apt-get: installs them with
// `apt-get install -y --no-install-recommends` (and says so). Otherwise: fails, saying what
// to install. Not Linux: nothing to do (the tests that need it run on Linux only).
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const NEEDED = [
  { bin: 'dbus-run-session', pkg: 'dbus' },
  { bin: 'gnome-keyring-daemon', pkg: 'gnome-keyring' },
];

/** @param {string} bin */
function onPath(bin) {
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

function main() {
  if (process.platform !== 'linux') return 0;
  const missing = NEEDED.filter((n) => !onPath(n.bin));
  if (missing.length === 0) return 0;
  const pkgs = missing.map((n) => n.pkg);
  const what = missing.map((n) => `${n.bin} (Debian package ${n.pkg})`).join(' and ');
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !onPath('apt-get')) {
    process.stderr.write(
      `ensureSecretService: the secret-store tests need ${what}, and this script can install them only as root with apt-get.\n` +
        `Install them (e.g. sudo apt-get install -y ${pkgs.join(' ')}) and run the tests again.\n`,
    );
    return 1;
  }
  process.stderr.write(`ensureSecretService: installing ${pkgs.join(' ')} with apt-get for the secret-store tests\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env });
  } catch {
    // A fresh machine's package lists may be empty: read them once, then try again.
    execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env });
  }
  const still = NEEDED.filter((n) => !onPath(n.bin));
  if (still.length) {
    process.stderr.write(
      `ensureSecretService: still missing after the install: ${still.map((n) => n.bin).join(', ')}\n`,
    );
    return 1;
  }
  return 0;
}

process.exitCode = main();
