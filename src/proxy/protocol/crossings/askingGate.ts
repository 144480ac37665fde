/**
 * Which held calls (heldCall.ts) of 2026-07-28 clients to one 2025-11-25 server run at once,
 * so that a server-to-client request the wire does not link to a call reaches only the
 * client whose call sent it.
 *
 * A 2025 server asks mid-call with a request of its own. On stdio, on a legacy SSE stream,
 * and on the standalone GET stream of streamable HTTP, nothing in that request says which of
 * our calls it belongs to (the SDK's `relatedRequestId` only picks the HTTP response stream;
 * no `_meta` names the call). With two calls running, the request could be either's, and
 * giving it to the wrong one shows a client another client's question and lets it answer
 * for it. So on a server that may ask at all (its entry lets the proxy route sampling,
 * elicitation or roots), a call that may ask runs alone: a call of a tool or prompt (all of
 * `resources/read` counting as one) seen asking without a link, or not seen yet, waits its
 * turn, first come first served; one seen to finish without asking, or whose requests all
 * came linked, runs at once beside it. A request without a link then goes to the call whose
 * turn it is (heldInputTable.ts `unlinked`). The cost: on such a server the calls that ask
 * run one at a time across all clients, a call waiting for its client's answers keeping the
 * others waiting (each for at most its own timeout), and the first call of each tool waits
 * as one that asks. The one presumption: a tool seen to finish without asking does not ask;
 * if it does while another call has the turn, that call gets the request.
 */
import type { Upstream } from '../../upstream/upstream.js';

/** A call as the gate sees it. */
export interface GatedCall {
  readonly upstream: Upstream;
  /** The tool or prompt the call is (`resources/read` for every read): what is learned. */
  readonly askKey: string;
}

/** What a finished call showed of its tool: it asked without a link, or it did not ask. */
export type Learned = 'asks' | 'quiet';

/** Tools remembered per server (the oldest forgotten, then waiting as one not seen yet). */
export const MAX_LEARNED = 1024;

interface ServerGate {
  readonly learned: Map<string, Learned>;
  holder?: GatedCall;
  readonly queue: { c: GatedCall; run: () => void }[];
}

/** Whether `u` may send requests to its client at all: its entry declares a capability the proxy routes. */
function mayAsk(u: Upstream): boolean {
  const f = u.entry.clientCapabilities;
  return !!(f?.sampling || f?.elicitation || f?.roots);
}

export class AskingGate {
  private readonly servers = new WeakMap<Upstream, ServerGate>();

  /** Runs `run` (sends `c` to its server) now, or when it is `c`'s turn. */
  enter(c: GatedCall, run: () => void): void {
    if (!mayAsk(c.upstream)) return run();
    let g = this.servers.get(c.upstream);
    if (!g) this.servers.set(c.upstream, (g = { learned: new Map(), queue: [] }));
    if (g.learned.get(c.askKey) === 'quiet') return run();
    if (g.holder) return void g.queue.push({ c, run });
    g.holder = c;
    run();
  }

  /** The call whose turn it is on `u`, if any. */
  holder(u: Upstream): GatedCall | undefined {
    return this.servers.get(u)?.holder;
  }

  /** Whether `c` is waiting for its turn. */
  queued(c: GatedCall): boolean {
    return this.servers.get(c.upstream)?.queue.some((q) => q.c === c) ?? false;
  }

  /**
   * `c` is done with its server, or will never reach it: what it showed of its tool is
   * kept (`asks` stays once seen), and the next call waiting gets its turn.
   */
  leave(c: GatedCall, learned?: Learned): void {
    const g = this.servers.get(c.upstream);
    if (!g) return;
    if (learned && g.learned.get(c.askKey) !== 'asks') {
      g.learned.delete(c.askKey);
      g.learned.set(c.askKey, learned);
      if (g.learned.size > MAX_LEARNED) g.learned.delete(g.learned.keys().next().value!);
    }
    const i = g.queue.findIndex((q) => q.c === c);
    if (i >= 0) g.queue.splice(i, 1);
    if (g.holder === c) g.holder = undefined;
    // Calls of a tool now known not to ask run at once; the first other one takes the turn.
    // Their sends are deferred so that none runs inside this one's ending.
    for (const q of [...g.queue]) {
      const quiet = g.learned.get(q.c.askKey) === 'quiet';
      if (!quiet && g.holder) continue;
      g.queue.splice(g.queue.indexOf(q), 1);
      if (!quiet) g.holder = q.c;
      queueMicrotask(q.run);
    }
  }
}
