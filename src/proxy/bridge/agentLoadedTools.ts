/**
 * `POST /economy/sessions`: what the agents' own proxies (the app's chain) report of the tools
 * their sessions loaded by search (hub/economy/loadedReport.ts), kept per reporting proxy and
 * shown in the bridge's status beside the bridge's own sessions. Authenticated like every API
 * route (the caller checks the token first). Bounded: a few reporters, each report as the
 * status bounds a session list; a report replaces that proxy's last one, an empty one or the
 * proxy's exit (its pid gone) removes it.
 *
 * In the tool economy's lazily loaded file, with the proxy's end of it: only a bridge that an
 * agent's proxy reports to loads it, on the first report.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EconomySessionStatus } from '../../shared/status.js';
import { MAX_ECONOMY_SESSIONS } from '../hub/economy/loadedSessions.js';
import { readJsonBody, sendBodyFailure, sendError } from './body.js';

/** The most agent proxies whose reports are kept; a new one past it replaces the oldest report. */
export const MAX_REPORTERS = 16;
/** Enough for a full report of names of the longest kind; anything larger is not one. */
const MAX_REPORT_BYTES = 256 * 1024;
const MAX_NAME_CHARS = 256;
/** A session keeps at most this many found tools listed (hub/economy/foundTools.ts `MAX_REPORTED_TOOLS`). */
const MAX_REPORTED_TOOLS = 64;

interface Report {
  sessions: EconomySessionStatus[];
}

export class AgentLoadedTools {
  /** By reporting pid, oldest report first. */
  private readonly reports = new Map<number, Report>();

  constructor(
    /** Whether a pid still runs (a test may pass its own). */
    private readonly alive: (pid: number) => boolean = pidAlive,
  ) {}

  /** Keeps `body` as its proxy's report; the reason it is not one, otherwise. */
  accept(body: unknown): string | undefined {
    const report = parseReport(body);
    if (typeof report === 'string') return report;
    this.reports.delete(report.pid);
    if (report.sessions.length === 0) return undefined;
    this.reports.set(report.pid, { sessions: report.sessions });
    for (const pid of this.reports.keys()) {
      if (this.reports.size <= MAX_REPORTERS) break;
      this.reports.delete(pid);
    }
    return undefined;
  }

  /** The reported sessions of the proxies still running, the newest report first, each with its proxy's pid. */
  sessions(): EconomySessionStatus[] {
    const out: EconomySessionStatus[] = [];
    for (const [pid, r] of [...this.reports].reverse()) {
      if (!this.alive(pid)) {
        this.reports.delete(pid);
        continue;
      }
      for (const s of r.sessions) out.push({ ...s, agentPid: pid });
    }
    return out;
  }
}

/** Where the reports are kept (the bridge's status feed), and whom to tell of one. */
export interface AgentLoadedHolder {
  agents?: { sessions(): EconomySessionStatus[] };
  changed(): void;
}

/** Answers `POST /economy/sessions`, keeping the reports in `holder` (its store made on the first). */
export async function serveAgentLoaded(
  req: IncomingMessage,
  res: ServerResponse,
  holder: AgentLoadedHolder,
  bodyTimeoutMs: number,
): Promise<void> {
  if (req.method !== 'POST') {
    sendError(res, 405, 'method not allowed', {}, { Allow: 'POST' });
    return;
  }
  const read = await readJsonBody(req, MAX_REPORT_BYTES, bodyTimeoutMs);
  if (!read.ok) {
    sendBodyFailure(res, read.reason, MAX_REPORT_BYTES);
    return;
  }
  const store = holder.agents instanceof AgentLoadedTools ? holder.agents : (holder.agents = new AgentLoadedTools());
  const problem = store.accept(read.value);
  if (problem) {
    sendError(res, 400, `not a report of loaded tools: ${problem}`);
    return;
  }
  holder.changed();
  res.writeHead(204).end();
}

function parseReport(body: unknown): { pid: number; sessions: EconomySessionStatus[] } | string {
  if (!isObject(body)) return 'expected a JSON object';
  const { pid, sessions } = body;
  if (!Number.isSafeInteger(pid) || (pid as number) <= 0) return '"pid" must be a positive integer';
  if (!Array.isArray(sessions)) return '"sessions" must be an array';
  if (sessions.length > MAX_ECONOMY_SESSIONS) return `"sessions" holds more than ${MAX_ECONOMY_SESSIONS}`;
  const out: EconomySessionStatus[] = [];
  for (const [i, s] of sessions.entries()) {
    const at = `"sessions[${i}]"`;
    if (!isObject(s)) return `${at} must be an object`;
    if (!Number.isSafeInteger(s.id)) return `${at}.id must be an integer`;
    if (!shortString(s.startedAt)) return `${at}.startedAt must be a string`;
    if (s.client !== undefined && !shortString(s.client)) return `${at}.client must be a string`;
    const loaded = s.loaded;
    if (!Array.isArray(loaded) || loaded.length > MAX_REPORTED_TOOLS || !loaded.every(shortString))
      return `${at}.loaded must be at most ${MAX_REPORTED_TOOLS} tool names`;
    out.push({
      id: s.id as number,
      ...(s.client === undefined ? {} : { client: s.client as string }),
      startedAt: s.startedAt as string,
      loaded: loaded as string[],
    });
  }
  return { pid: pid as number, sessions: out };
}

function shortString(v: unknown): v is string {
  return typeof v === 'string' && v.length <= MAX_NAME_CHARS;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
