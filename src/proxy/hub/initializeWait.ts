/**
 * When an aggregate session's `initialize` is answered while servers are in their first
 * start: once every server in scope has settled, or {@link INITIALIZE_GRACE_MS} after the
 * first of them became ready, whichever comes first, and never after the ready window. The
 * slowest server does not hold the handshake: hosts give up on it sooner than the ready
 * window (Codex waits 10 s for a server's start-up). What the answer cannot know yet is
 * covered by aggregateCapabilities.ts (a server not ready counts as the kinds the proxy can
 * always answer); its tools arrive with `list_changed`, and the session's first list still
 * waits for servers in their first start (bounded by the ready window).
 *
 * With no server ready yet, `initialize` waits for the first (still bounded by the ready
 * window): until then the answer would know nothing the fixed set does not say.
 */

/** How long after the first server became ready an aggregate `initialize` still waits for the others. */
export const INITIALIZE_GRACE_MS = 2_000;

/** What the wait reads of an upstream (structural: upstream.ts's Upstream). */
export interface StartingServer {
  readonly isReady: boolean;
  readonly isSettled: boolean;
  readonly readyAt?: Date;
  whenSettled(timeoutMs: number): Promise<void>;
}

/** Resolves when an aggregate `initialize` may be answered; undefined when it may be at once. `windowLeftMs`: the ready window's rest. */
export function initializeWait(
  servers: readonly StartingServer[],
  windowLeftMs: number,
  graceMs = INITIALIZE_GRACE_MS,
): Promise<void> | undefined {
  const starting = servers.filter((u) => !u.isSettled);
  if (windowLeftMs <= 0 || starting.length === 0) return undefined;
  const now = Date.now();
  const deadline = now + windowLeftMs;
  const readySince = servers.filter((u) => u.isReady && u.readyAt).map((u) => u.readyAt!.getTime());
  const graceEnd = readySince.length > 0 ? Math.min(...readySince) + graceMs : undefined;
  if (graceEnd !== undefined && graceEnd <= now) return undefined;
  return new Promise<void>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let graceStarted = graceEnd !== undefined;
    const finish = () => {
      clearTimeout(timer);
      resolve();
    };
    const until = (at: number) => {
      clearTimeout(timer);
      timer = setTimeout(finish, Math.max(0, Math.min(at, deadline) - Date.now()));
      timer.unref?.();
    };
    until(graceEnd ?? deadline);
    let pending = starting.length;
    for (const u of starting) {
      void u.whenSettled(windowLeftMs).then(() => {
        if (--pending === 0) return finish();
        if (u.isReady && !graceStarted) {
          graceStarted = true;
          until(Date.now() + graceMs);
        }
      });
    }
  });
}
