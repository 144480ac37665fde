#!/usr/bin/env node
// Makes sure the tests can run a private Secret Service (the OS keychain of Linux), which the
// `${secret:...}` tests start per file (tests/helpers/secretService.ts): `dbus-run-session`
// (Debian package `dbus`) and `gnome-keyring-daemon` (package `gnome-keyring`). Installed as
// root with apt-get when missing, else a failure saying what to install (debianTools.mjs).
// Not Linux: nothing to do (the tests that need it run on Linux only).
import { ensureDebianTools } from './debianTools.mjs';

process.exitCode = ensureDebianTools('ensureSecretService', 'the secret-store tests', [
  { bin: 'dbus-run-session', pkg: 'dbus' },
  { bin: 'gnome-keyring-daemon', pkg: 'gnome-keyring' },
]);
