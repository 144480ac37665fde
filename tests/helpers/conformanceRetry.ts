// A conformance run that is not about timing gets one more try when a scenario failed on a
// timeout (the suite's own per-request bound, which a loaded machine can hit): the run is
// repeated once, the timed-out scenarios take the second run's checks, and a line on stderr
// says which were retried. Any other failure stands as the first run found it.

/** A failure message that says a time bound ran out. */
export const TIMEOUT_MESSAGE = /time(d)?[ -]?out|timeout|deadline/i;

/** Scenario names whose checks include a failure with a timeout message. */
export function timedOutScenarios(failures: Iterable<{ scenario: string; message?: string }>): Set<string> {
  const out = new Set<string>();
  for (const f of failures) if (f.message && TIMEOUT_MESSAGE.test(f.message)) out.add(f.scenario);
  return out;
}

/** Says on stderr which scenarios were run again, and why. */
export function reportRetry(suite: string, url: string, scenarios: Set<string>): void {
  process.stderr.write(
    `conformance ${suite} at ${url}: ${[...scenarios].join(', ')} failed on a timeout; retried once\n`,
  );
}
