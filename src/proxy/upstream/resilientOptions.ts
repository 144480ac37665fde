/**
 * The options of ResilientTransportWrapper (resilientTransport.ts) and their defaults: heartbeat
 * every 30 s (5 s timeout, dead after 3 failures), backoff 1 s doubling to 60 s, 100 messages
 * queued, 20 s per connection attempt, no retry before the first initialize is answered.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Logger } from '../common/logger.js';

export type ResilientState = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'closed';

export interface ResilientOptions {
  factory: () => Transport | Promise<Transport>;
  heartbeatIntervalMs?: number;
  heartbeatTimeoutMs?: number;
  maxHeartbeatFailures?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
  maxQueue?: number;
  /** Bound on one connection attempt (start + initialize replay). */
  attemptTimeoutMs?: number;
  /**
   * Retry in the background even before the first initialize was answered (the old rule,
   * kept for `convert`). Off: a first failure closes the wrapper with `failure` set.
   */
  retryBeforeEstablished?: boolean;
  logger?: Logger;
  onstatechange?: (state: ResilientState, reason?: string) => void;
}

/** The options with every default filled in (`logger` and `onstatechange` stay optional). */
export type ResolvedResilientOptions = Required<Omit<ResilientOptions, 'logger' | 'onstatechange'>> &
  Pick<ResilientOptions, 'logger' | 'onstatechange'>;

export function resolveResilientOptions(options: ResilientOptions): ResolvedResilientOptions {
  return {
    heartbeatIntervalMs: 30_000,
    heartbeatTimeoutMs: 5_000,
    maxHeartbeatFailures: 3,
    initialDelayMs: 1_000,
    maxDelayMs: 60_000,
    maxQueue: 100,
    attemptTimeoutMs: 20_000,
    retryBeforeEstablished: false,
    ...options,
  };
}
