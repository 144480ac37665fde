// A conformance run that is not about timing gets one more try where a loaded machine, not
// the server, may be why a scenario did not pass: a scenario that failed with a message from
// a time bound (the suite's own per-request bound, the run's bound) or a connection reset, a
// scenario that started and wrote no checks, and, when the run was stopped by its bound,
// every scenario it had not reached. The run is repeated once, those scenarios take the
// second run's checks, and a line on stderr says which were retried and why. Any other
// failure stands as the first run found it.

/** A failure message that says a time bound ran out or the connection was reset. */
export const RETRY_MESSAGE =
  /time(d)?[ -]?out|timeout|deadline|ECONNRESET|socket hang up|other side closed|connection reset/i;

/** What one run of a suite left: each failure, the scenarios without checks, whether it was stopped. */
export interface RunOutcome {
  failures: Iterable<{ scenario: string; message?: string }>;
  /** Scenarios the run started but wrote no checks for. */
  empty: Iterable<string>;
  /** The run was stopped by its own time bound (the scenarios it had not reached have no checks). */
  killed: boolean;
}

/** Scenario -> why it is run again; `UNREACHED` stands for the scenarios a stopped run did not reach. */
export function retryReasons(run: RunOutcome): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of run.failures)
    if (f.message && RETRY_MESSAGE.test(f.message)) out.set(f.scenario, `failed: ${f.message.slice(0, 120)}`);
  for (const s of run.empty) out.set(s, 'wrote no checks');
  if (run.killed) out.set(UNREACHED, 'the run was stopped by its time bound');
  return out;
}

/** The key of `retryReasons` for the scenarios a stopped run did not reach. */
export const UNREACHED = '(not reached)';

/** Whether `scenario` takes the second run's checks: it is named, or the first run never reached it. */
export function takesRetry(reasons: Map<string, string>, scenario: string, inFirst: boolean): boolean {
  return reasons.has(scenario) || (reasons.has(UNREACHED) && !inFirst);
}

/** Says on stderr which scenarios were run again, and why. */
export function reportRetry(suite: string, url: string, reasons: Map<string, string>): void {
  const list = [...reasons].map(([s, why]) => `${s} (${why})`).join('; ');
  process.stderr.write(`conformance ${suite} at ${url}: retried once: ${list}\n`);
}
