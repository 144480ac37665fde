/**
 * Which agents' MCP connections reached the bridge: an ACP session's entries carry a key of
 * the app's (the `X-Qiming-Agent-Session` header, on the stdio proxy's stream links and on an
 * agent's own http entry), the bridge notes it on any authenticated MCP request that carries
 * it, and `GET /agents/arrivals/<key>?waitMs=N` answers `{"arrived": true}` as soon as it
 * came, or `{"arrived": false}` once `waitMs` passed without it: how the app's `newSession`
 * knows that the agent connected, and sees an entry the agent dropped. Bounded: the newest
 * keys only, keys of a fixed shape, a capped wait and a capped number of waiters. In a file of
 * its own, loaded with the first connection that carries a key or the first question about one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendJson } from './body.js';
import { AGENT_SESSION_HEADER, AGENT_SESSION_KEY_RE as KEY_RE } from './agentHeaders.js';
/** Keys kept, newest last; an agent asks right after its session opened, so a few suffice. */
const MAX_KEYS = 256;
/** The longest one request waits. */
const MAX_WAIT_MS = 60_000;
/** The most requests waiting at once; past it, a request is answered at once with what is known. */
const MAX_WAITERS = 64;

export class AgentArrivals {
  private readonly arrived = new Set<string>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private waiting = 0;

  /** Notes the key of a request's header, if it carries a well-formed one. */
  noteFrom(headers: IncomingMessage['headers']): void {
    const raw = headers[AGENT_SESSION_HEADER];
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (key === undefined || !KEY_RE.test(key) || this.arrived.has(key)) return;
    this.arrived.add(key);
    for (const k of this.arrived) {
      if (this.arrived.size <= MAX_KEYS) break;
      this.arrived.delete(k);
    }
    for (const wake of this.waiters.get(key) ?? []) wake();
  }

  /** Whether `key` arrived, within `waitMs` (capped). */
  wait(key: string, waitMs: number): Promise<boolean> {
    if (this.arrived.has(key)) return Promise.resolve(true);
    if (!(waitMs > 0) || this.waiting >= MAX_WAITERS) return Promise.resolve(false);
    this.waiting++;
    return new Promise((resolve) => {
      const set = this.waiters.get(key) ?? new Set<() => void>();
      this.waiters.set(key, set);
      const done = (arrived: boolean) => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0) this.waiters.delete(key);
        this.waiting--;
        resolve(arrived);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), Math.min(waitMs, MAX_WAIT_MS));
      timer.unref(); // a wait never keeps the bridge from ending
      set.add(wake);
    });
  }

  /** Answers `GET /agents/arrivals/<key>?waitMs=N` (the caller checked the token). */
  async serve(req: IncomingMessage, res: ServerResponse, rawKey: string, url: URL): Promise<void> {
    if (req.method !== 'GET') {
      sendError(res, 405, 'method not allowed', {}, { Allow: 'GET' });
      return;
    }
    if (!KEY_RE.test(rawKey)) {
      sendError(res, 400, 'malformed agent session key');
      return;
    }
    const waitMs = Number(url.searchParams.get('waitMs') ?? '0');
    const arrived = await this.wait(rawKey, Number.isFinite(waitMs) ? waitMs : 0);
    sendJson(res, 200, { arrived });
  }
}
