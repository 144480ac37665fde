// A fake npm registry on 127.0.0.1 port 0 serving one package: its packument at `/<name>` and
// its tarball (packed with the system's tar from a folder holding `package.json` and the
// files given) at `/<name>/-/<name>-<version>.tgz`. It counts the requests it answered, so a
// test can tell the package was fetched from it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { basename, join } from 'node:path';

export interface FakeRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  port: number;
  /** The paths asked for, in order. */
  requests: string[];
  close: () => Promise<void>;
}

/**
 * Serves `name@version`, whose bin `name` is `bin` (copied in, executable); packed in `work`.
 */
export async function fakeNpmRegistry(work: string, name: string, version: string, bin: string): Promise<FakeRegistry> {
  const pkg = join(work, 'package');
  mkdirSync(pkg, { recursive: true });
  const file = basename(bin);
  copyFileSync(bin, join(pkg, file));
  chmodSync(join(pkg, file), 0o755);
  const manifest = { name, version, bin: { [name]: file } };
  writeFileSync(join(pkg, 'package.json'), JSON.stringify(manifest));
  const tgzPath = join(work, `${name}-${version}.tgz`);
  execFileSync('tar', ['-czf', tgzPath, '-C', work, 'package']);
  const tgz = readFileSync(tgzPath);
  const requests: string[] = [];
  let base = '';
  const packument = () => ({
    name,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        ...manifest,
        dist: {
          tarball: `${base}${name}/-/${name}-${version}.tgz`,
          shasum: createHash('sha1').update(tgz).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
        },
      },
    },
  });
  const server = http.createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '').split('?')[0]);
    requests.push(path);
    if (path === `/${name}`)
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument()));
    else if (path === `/${name}/-/${name}-${version}.tgz`)
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tgz);
    else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  base = `http://127.0.0.1:${port}/`;
  return {
    url: base,
    port,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
