// The tests' one polling wait.

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Calls `check` (sync or async) every `intervalMs` until it returns a truthy value, and
 * resolves with that value; rejects after `timeoutMs`, naming `what` (a string, or a function
 * that describes the state at the time of the failure).
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs = 5_000,
  what: string | (() => string) = 'condition',
  intervalMs = 20,
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as Truthy<T>;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
