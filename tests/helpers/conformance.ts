// Runs the MCP conformance server suite (@modelcontextprotocol/conformance 0.1.16, its bin
// under Node 22) against a URL and reads back what each scenario found: the suite writes
// `<out>/server-<scenario>-<timestamp>/checks.json` per scenario (its exit code only says
// whether anything failed).
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './paths.js';
import { node22 } from './nodeBinaries.js';
import { reportRetry, retryReasons, takesRetry } from './conformanceRetry.js';
import { scaled } from './loadScale.js';

/** The 2025-11-25 suite (0.1.16); the 2026-07-28 one is the `conformance-2026` alias. */
export const CONFORMANCE_BIN = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** Scenario name -> its checks, in the suite's order. */
export type SuiteResult = Map<string, Check[]>;

const DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/;
const running = new Set<ChildProcess>();
const outDirs = new Set<string>();
/** Set by stopConformanceRuns: a run it killed is not retried. */
let halting = false;

/** Kills every suite run still going (call from afterAll: a hook that timed out leaves them running). */
export async function stopConformanceRuns(): Promise<void> {
  halting = true;
  await Promise.all(
    [...running].map(async (child) => {
      child.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
    }),
  );
  for (const dir of outDirs) rmSync(dir, { recursive: true, force: true });
  outDirs.clear();
}

/**
 * Runs every server scenario (`--suite all`: the active ones and the pending ones) against
 * `url`; a scenario that failed on a timeout or a reset, wrote no checks, or was not reached
 * before the run's bound (`timeoutMs`, stretched on a loaded machine) takes a second run's
 * checks (conformanceRetry.ts). A second run stopped by its bound is an error.
 */
export async function runConformance(url: string, timeoutMs = 120_000, bin = CONFORMANCE_BIN): Promise<SuiteResult> {
  const first = await runOnce(url, timeoutMs, bin);
  const reasons = retryReasons({
    failures: [...first.result].flatMap(([scenario, checks]) =>
      checks.filter((c) => c.status === 'FAILURE').map((c) => ({ scenario, message: c.errorMessage })),
    ),
    empty: first.empty,
    killed: first.killed,
  });
  if (!reasons.size) return first.result;
  reportRetry('2025-11-25', url, reasons);
  const second = await runOnce(url, timeoutMs, bin);
  if (second.killed) throw new Error(`the conformance suite at ${url} ran past ${scaled(timeoutMs)} ms twice`);
  const result: SuiteResult = new Map();
  for (const [scenario, checks] of second.result)
    result.set(
      scenario,
      takesRetry(reasons, scenario, first.result.has(scenario)) ? checks : first.result.get(scenario)!,
    );
  for (const [scenario, checks] of first.result) if (!result.has(scenario)) result.set(scenario, checks);
  return result;
}

/** One run of the suite: each scenario's checks, the scenarios without any, whether its bound stopped it. */
async function runOnce(
  url: string,
  timeoutMs: number,
  bin: string,
): Promise<{ result: SuiteResult; empty: string[]; killed: boolean }> {
  const out = mkdtempSync(join(tmpdir(), 'qiming-conformance-'));
  outDirs.add(out);
  try {
    const killed = await new Promise<boolean>((resolve, reject) => {
      const child = execFile(
        node22(),
        [bin, 'server', '--url', url, '--suite', 'all', '-o', out],
        { timeout: scaled(timeoutMs), maxBuffer: 16 << 20 },
        (err) =>
          // Exit 1 means "some check failed"; the checks say which. A kill by the bound is
          // reported (the run is retried); any other kill or a crash is an error.
          err?.killed && !halting
            ? resolve(true)
            : err && (typeof err.code !== 'number' || err.code > 1)
              ? reject(err)
              : resolve(false),
      );
      running.add(child);
      child.once('exit', () => running.delete(child));
    });
    const result: SuiteResult = new Map();
    const empty: string[] = [];
    for (const dir of readdirSync(out).sort()) {
      const m = DIR.exec(dir);
      if (!m) continue;
      const file = join(out, dir, 'checks.json');
      const checks = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Check[]) : [];
      if (checks.length === 0) empty.push(m[1]);
      else result.set(m[1], checks);
    }
    return { result, empty, killed };
  } finally {
    rmSync(out, { recursive: true, force: true });
    outDirs.delete(out);
  }
}

/** What a scenario concluded, without its INFO log lines: `id=STATUS` per verdict, in order. */
export function verdicts(checks: Check[]): string[] {
  return checks.filter((c) => c.status !== 'INFO').map((c) => `${c.id}=${c.status}`);
}

/** One line per scenario: passed/failed/warned counts. */
export function tally(checks: Check[]): { passed: number; failed: number; warnings: number } {
  const n = (s: Check['status']) => checks.filter((c) => c.status === s).length;
  return { passed: n('SUCCESS'), failed: n('FAILURE'), warnings: n('WARNING') };
}
