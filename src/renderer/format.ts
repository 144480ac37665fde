/** Small pure formatting helpers for the status panel. */
import type { BridgeState, RuntimeStatus, ServerState } from '../shared/status.js';

/** Words for each server state: the badge never relies on colour alone. */
export const SERVER_STATE_LABELS: Record<ServerState, string> = {
  starting: 'Starting',
  ready: 'Ready',
  failed: 'Failed',
  restarting: 'Restarting',
  stopped: 'Stopped',
  disabled: 'Disabled',
  'needs-auth': 'Sign-in needed',
};

/** A shape cue per state, next to the colour and the word. */
export const SERVER_STATE_GLYPHS: Record<ServerState, string> = {
  starting: '\u25cc', // dotted circle
  ready: '\u2713', // check mark
  failed: '\u2715', // cross
  restarting: '\u21bb', // clockwise arrow
  stopped: '\u25a0', // square
  disabled: '\u2013', // dash
  'needs-auth': '\u26bf', // squared key
};

export const BRIDGE_STATE_LABELS: Record<BridgeState, string> = {
  starting: 'Starting',
  ready: 'Ready',
  stopping: 'Stopping',
  stopped: 'Stopped',
  crashed: 'Crashed',
};

/** States in which the Restart button would only race with the runtime's own work. */
export function restartBlocked(state: ServerState): boolean {
  return state === 'starting' || state === 'restarting' || state === 'disabled';
}

/** States in which `startedAt` describes a live process or connection. */
export function showsUptime(state: ServerState): boolean {
  return state === 'ready' || state === 'starting';
}

/** `3d 4h`, `2h 05m`, `7m 03s`, `42s`. Negative or unknown input gives `—`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '\u2014';
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${two(m)}m`;
  if (m > 0) return `${m}m ${two(sec)}s`;
  return `${sec}s`;
}

/** Uptime text for a server, or `—` when it has none. */
export function uptimeText(state: ServerState, startedAt: string | undefined, nowMs: number): string {
  if (!startedAt || !showsUptime(state)) return '\u2014';
  const started = Date.parse(startedAt);
  return Number.isNaN(started) ? '\u2014' : formatDuration(Math.max(0, nowMs - started));
}

/** Start-up progress: servers ready out of servers that are supposed to run. */
export function startupProgress(status: RuntimeStatus): {
  ready: number;
  total: number;
  disabled: number;
  failed: number;
} {
  let ready = 0;
  let disabled = 0;
  let failed = 0;
  for (const s of status.servers) {
    if (s.state === 'ready') ready++;
    else if (s.state === 'disabled') disabled++;
    else if (s.state === 'failed') failed++;
  }
  return { ready, total: status.servers.length - disabled, disabled, failed };
}

/** `1 tool`, `3 tools`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * A token count at a glance: `950`, `6.2k`, `12.5k`, `122k`, `1.2M`. Estimates are
 * written with a leading `~` by the caller; a budget is written as is.
 */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '?';
  if (n < 999.5) return String(Math.round(n));
  const short = (v: number) => String(v < 99.95 ? Math.round(v * 10) / 10 : Math.round(v));
  // 999,600 would round to "1000k": from there on, millions.
  return n < 999_500 ? `${short(n / 1000)}k` : `${short(n / 1e6)}M`;
}

/**
 * The weight of a server's tools as an aggregate lists them: `~6.2k tokens`; when its tool
 * filters leave the agents fewer than the `offered` ones (`listed`), that too:
 * `agents get 12, ~5.1k tokens`. Undefined without a weight (the server is not ready).
 */
export function toolWeightText(
  offered: number,
  listed: number | undefined,
  tokens: number | undefined,
): string | undefined {
  if (tokens === undefined) return undefined;
  const weight = `~${formatTokens(tokens)} tokens`;
  return listed === undefined || listed === offered ? weight : `agents get ${listed}, ${weight}`;
}
