// Where tool pinning keeps a server's pins, for the tests that read or write pin files: the
// file of a launch (src/proxy/pinning/launchIdentity.ts, pinStore.ts) and the one named after a
// server id that pins were kept in before they were keyed by the launch.
import { identityOf, type Launch } from '../../src/proxy/pinning/launchIdentity.js';
import { namedPinFilePath, pinFile } from '../../src/proxy/pinning/pinStore.js';

/** The pin file of the server launched as `launch` (a stdio `{command, args}` or a remote `{url}`, as the config writes them). */
export function launchPinPath(pinsDir: string, launch: Launch): string {
  return pinFile(pinsDir, '', identityOf(launch)).path;
}

/** The pin file named after server `id`. */
export function namedPinPath(pinsDir: string, id: string): string {
  return namedPinFilePath(pinsDir, id);
}
