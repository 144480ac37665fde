// What the sandbox tests share: a user's folder with a secret in its HOME, a project and an
// outside folder; the probe fixture's entry; a tool call's text; a loopback TCP server that
// counts who connected; an HTTP server that answers `hello`.
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FIXTURES } from './paths.js';
import { tempDir } from './proxyCli.js';

export const PROBE = join(FIXTURES, 'sandboxProbeServer.mjs');
/** A one-file MCP server with no imports, as an npm package npx fetched would be. */
export const TINY = join(FIXTURES, 'tinyHomeServer.mjs');
export const SECRET = 'ssh-SECRET-key-material';

export interface UserFolders {
  root: string;
  home: string;
  secret: string;
  project: string;
  outside: string;
  /** HOME and the XDG folders of the proxy run as this user. */
  env: Record<string, string>;
  remove: () => void;
}

export function userFolders(prefix = 'sandbox-'): UserFolders {
  const t = tempDir(prefix);
  const home = join(t.path, 'home');
  const secret = join(home, '.ssh', 'id_ed25519');
  const project = join(t.path, 'project');
  const outside = join(t.path, 'outside');
  for (const d of [join(home, '.ssh'), project, outside]) mkdirSync(d, { recursive: true });
  writeFileSync(secret, SECRET);
  writeFileSync(join(project, 'notes.txt'), 'project notes');
  return {
    root: t.path,
    home,
    secret,
    project,
    outside,
    env: {
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
    },
    remove: t.remove,
  };
}

export function probeEntry(sandbox?: unknown): Record<string, unknown> {
  return { command: process.execPath, args: [PROBE], ...(sandbox !== undefined ? { sandbox } : {}) };
}

/** The text a tool answered. */
export async function callText(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const r = (await client.callTool({ name, arguments: args })) as { content: Array<{ text?: string }> };
  return r.content[0]?.text ?? '';
}

/** A TCP server on 127.0.0.1 port 0 that counts connections. */
export async function loopbackServer(): Promise<{
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return { port, connections: () => n, close: () => new Promise((r) => server.close(() => r())) };
}

/** An HTTP server on 127.0.0.1 port 0 answering `hello`. */
export async function helloServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((_req, res) => res.end('hello'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
