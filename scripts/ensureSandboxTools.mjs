#!/usr/bin/env node
// Makes sure the sandbox tests can run servers in a sandbox on Linux (src/proxy/sandbox/):
// `bwrap` (Debian package `bubblewrap`) and `socat` (package `socat`, which carries an
// allow-listed server's proxy connection into its network namespace). Installed as root with
// apt-get when missing, else a failure saying what to install (debianTools.mjs). Not Linux:
// nothing to do (macOS's Seatbelt ships with the system).
import { ensureDebianTools } from './debianTools.mjs';

process.exitCode = ensureDebianTools('ensureSandboxTools', 'the sandbox tests', [
  { bin: 'bwrap', pkg: 'bubblewrap' },
  { bin: 'socat', pkg: 'socat' },
]);
