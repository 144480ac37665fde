// Runs the MCP conformance suite 0.2.0-alpha.12 (node_modules/conformance-2026, Node 22) with
// `--requirements 2026-07-28` against a URL, and reads its per-check results. The suite cannot
// send an Authorization header, so `authForwarder` puts a loopback hop in front of the bridge
// that adds the bridge token and changes nothing else.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './paths.js';
import { node22 } from './nodeBinaries.js';
import { reportRetry, retryReasons, takesRetry } from './conformanceRetry.js';
import { scaled } from './loadScale.js';

const SUITE = join(ROOT, 'node_modules', 'conformance-2026', 'dist', 'index.js');

/** Check id -> status (SUCCESS, FAILURE, WARNING, ...), prefixed by the scenario directory's name. */
export type Checks = Map<string, string>;

/**
 * A scenario that failed on a timeout or a reset, wrote no checks, or was not reached before
 * the run's bound (`timeoutMs`, stretched on a loaded machine) is run once more
 * (conformanceRetry.ts). `select`: which scenarios (default: what 2026-07-28 requires; a
 * name: that one scenario; or the suite's own arguments). `messages`, when given, gets each
 * check's error message.
 */
export async function runConformance(
  url: string,
  timeoutMs = 120_000,
  select: string | string[] = ['--requirements', '2026-07-28'],
  messages?: Map<string, string>,
): Promise<Checks> {
  const first = await runOnce(url, timeoutMs, select);
  const reasons = retryReasons({
    failures: [...first.checks]
      .filter(([, status]) => status === 'FAILURE')
      .map(([id]) => ({ scenario: scenarioOf(id), message: first.messages.get(id) })),
    empty: first.empty,
    killed: first.killed,
  });
  let result = first;
  if (reasons.size) {
    reportRetry('2026-07-28', url, reasons);
    const second = await runOnce(url, timeoutMs, select);
    const inFirst = new Set([...first.checks.keys()].map(scenarioOf));
    const again = (id: string) => takesRetry(reasons, scenarioOf(id), inFirst.has(scenarioOf(id)));
    result = { checks: new Map(), messages: new Map(), empty: [], killed: second.killed };
    for (const run of [first, second])
      for (const [id, status] of run.checks)
        if (again(id) === (run === second)) {
          result.checks.set(id, status);
          const m = run.messages.get(id);
          if (m) result.messages.set(id, m);
        }
  }
  for (const [id, m] of result.messages) messages?.set(id, m);
  return result.checks;
}

const scenarioOf = (id: string) => id.slice(0, id.indexOf('/'));

/** One run of the suite: every check's status and error message. */
async function runOnce(
  url: string,
  timeoutMs: number,
  select: string | string[],
): Promise<{ checks: Checks; messages: Map<string, string>; empty: string[]; killed: boolean }> {
  const out = mkdtempSync(join(tmpdir(), 'qiming-conf26-'));
  const args = typeof select === 'string' ? ['--scenario', select] : select;
  try {
    // Its exit code only says whether a check failed; a kill means the bound ran out.
    const killed = await new Promise<boolean>((resolve) => {
      execFile(
        node22(),
        [SUITE, 'server', '--url', url, ...args, '--timeout', '10000', '-o', out],
        { timeout: scaled(timeoutMs), maxBuffer: 16 << 20 },
        (err) => resolve(Boolean(err?.killed)),
      );
    });
    const checks: Checks = new Map();
    const messages = new Map<string, string>();
    const empty: string[] = [];
    for (const dir of readdirSync(out)) {
      const name = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
      const file = join(out, dir, 'checks.json');
      if (!existsSync(file)) {
        empty.push(name);
        continue;
      }
      const list = JSON.parse(readFileSync(file, 'utf8')) as { id: string; status: string; errorMessage?: string }[];
      if (list.length === 0) empty.push(name);
      for (const c of list) {
        // A scenario may emit one id more than once (one per case): each keeps its own row.
        let id = `${name}/${c.id}`;
        for (let n = 2; checks.has(id); n++) id = `${name}/${c.id}#${n}`;
        checks.set(id, c.status);
        if (c.errorMessage) messages.set(id, c.errorMessage);
      }
    }
    return { checks, messages, empty, killed };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Scenario -> [passed, total] of its checks. */
export function byScenario(checks: Checks): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const [id, status] of checks) {
    const s = id.slice(0, id.indexOf('/'));
    const r = out.get(s) ?? [0, 0];
    r[1]++;
    if (status === 'SUCCESS') r[0]++;
    out.set(s, r);
  }
  return out;
}

/** A loopback HTTP hop to `target` that adds `headers` to every request (streams both ways). */
export async function authForwarder(
  target: string,
  headers: Record<string, string>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const t = new URL(target);
  let self = '';
  const server = http.createServer((req, res) => {
    // Host and Origin naming this hop are rewritten to the target (the hop must be invisible
    // to the target's DNS-rebinding checks); any other value passes unchanged.
    const h: http.OutgoingHttpHeaders = { ...req.headers, ...headers };
    if (req.headers.host === self) h.host = t.host;
    if (req.headers.origin === `http://${self}`) h.origin = t.origin;
    const up = http.request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: h }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  self = `127.0.0.1:${port}`;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
