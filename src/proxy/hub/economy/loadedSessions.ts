/**
 * Which tools each aggregate session loaded by `search_tools`, as the status names them: for
 * the bridge's own sessions (economyStatus.ts) and for an agent's proxy telling the bridge of
 * its own (loadedReport.ts).
 */
import type { EconomySessionStatus } from '../../../shared/status.js';
import type { FoundTools } from './foundTools.js';

/** The most sessions the status names. */
export const MAX_ECONOMY_SESSIONS = 32;

/** What the status reads of a session. */
export interface LoadingSession {
  readonly serial: number;
  readonly clientName?: string;
  readonly startedAt: number;
  readonly lastActive: number;
  readonly found?: FoundTools;
}

/** The sessions that loaded a tool, most recently active first, at most {@link MAX_ECONOMY_SESSIONS}. */
export function loadedSessions(all: Iterable<LoadingSession>): EconomySessionStatus[] {
  const sessions: (EconomySessionStatus & { at: number })[] = [];
  for (const s of all) {
    if (!s.found?.size) continue;
    sessions.push({
      id: s.serial,
      ...(s.clientName === undefined ? {} : { client: s.clientName }),
      startedAt: new Date(s.startedAt).toISOString(),
      loaded: s.found.list(),
      at: s.lastActive,
    });
  }
  sessions.sort((a, b) => b.at - a.at);
  return sessions.slice(0, MAX_ECONOMY_SESSIONS).map(({ at: _at, ...s }) => s);
}
