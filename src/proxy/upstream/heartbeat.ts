/**
 * Heartbeat: the periodic check of a connection the resilient wrapper keeps alive. A ping
 * is sent `intervalMs` after the previous check completed (never two at once), bounded by
 * `timeoutMs`; after `maxFailures` failed checks in a row the connection counts as dead.
 * An interval of 0 turns it off.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { errorText, type Logger } from '../common/logger.js';

export interface HeartbeatOptions {
  intervalMs: number;
  timeoutMs: number;
  maxFailures: number;
  logger?: Logger;
  /** The wrapper is connected now. */
  isConnected(): boolean;
  /** The current connection, if any. */
  current(): Transport | undefined;
  /** Sends one ping on `t`, rejecting on an error or after `timeoutMs`. */
  ping(t: Transport, timeoutMs: number): Promise<unknown>;
  /** Too many failed checks in a row on the current connection. */
  onDead(): void;
}

export class Heartbeat {
  private timer?: NodeJS.Timeout;
  private busy = false;
  private failures = 0;

  constructor(private readonly o: HeartbeatOptions) {}

  /** A new connection: its failed checks are counted from 0. */
  reset(): void {
    this.failures = 0;
  }

  /** Schedules the next check (none when turned off or not connected). */
  schedule(): void {
    if (!this.o.intervalMs || !this.o.isConnected()) return;
    this.timer = setTimeout(() => void this.beat(), this.o.intervalMs);
    this.timer.unref?.();
  }

  /** Cancels the scheduled check. */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async beat(): Promise<void> {
    const t = this.o.current();
    if (this.busy || !t || !this.o.isConnected()) return;
    this.busy = true;
    try {
      await this.o.ping(t, this.o.timeoutMs);
      this.failures = 0;
    } catch (err) {
      this.failures++;
      this.o.logger?.warn(`heartbeat failed (${this.failures}/${this.o.maxFailures}): ${errorText(err)}`);
    } finally {
      this.busy = false;
    }
    if (t !== this.o.current()) return;
    if (this.failures >= this.o.maxFailures) this.o.onDead();
    else this.schedule();
  }
}
