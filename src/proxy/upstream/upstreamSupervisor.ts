/**
 * UpstreamSupervisor: what happens to one upstream after a failure, or on demand. A failure
 * clears its lists and restarts it with backoff (restartPolicy.ts) until the policy gives
 * up (`failed`); a 401/403 is not retried (the same credentials fail again). A restart on
 * demand resets the failure count, one at a time; a stop cancels any restart.
 */
import type { Logger } from '../common/logger.js';
import type { ServerState } from '../../shared/status.js';
import { RestartPolicy, type SupervisionOptions } from './restartPolicy.js';
import { httpStatusOf, isAuthRefusal, needsSignIn } from './upstreamErrors.js';

/** The upstream as its supervisor sees it (its public side). */
export interface Supervised {
  lastError?: string;
  httpStatus?: number;
  restarts: number;
  readonly readyAt?: Date;
  start(): Promise<void>;
}

/** The upstream's own steps the supervisor drives. */
export interface SupervisedSteps {
  readonly log: Logger;
  setState(s: ServerState): void;
  /** Closes the connection on purpose (its close is no crash). */
  drop(): Promise<void>;
  /** Empties the cached lists (telling the listener when there were tools). */
  clearLists(): void;
}

export class UpstreamSupervisor {
  private readonly policy: RestartPolicy;
  private restartTimer?: NodeJS.Timeout;
  /** halt() was called (and no restart since): a restart in progress must not start again. */
  private halted = false;
  private restartInFlight?: Promise<void>;

  constructor(
    private readonly u: Supervised,
    supervision: SupervisionOptions,
    private readonly steps: SupervisedSteps,
  ) {
    this.policy = new RestartPolicy(supervision);
  }

  /**
   * Restart on demand: resets the failure count. One restart at a time: a request while
   * one runs joins it (two would each spawn a process, leaving the first untracked).
   */
  restart(): Promise<void> {
    this.restartInFlight ??= this.doRestart().finally(() => (this.restartInFlight = undefined));
    return this.restartInFlight;
  }

  private async doRestart(): Promise<void> {
    this.halted = false;
    this.policy.reset();
    this.u.restarts++;
    // 'restarting' from the first moment: while the old process goes away, /status must
    // not show 'ready' without a pid (nor flicker through 'stopped').
    this.steps.setState('restarting');
    this.cancel();
    await this.steps.drop();
    // Stopped meanwhile (the bridge is shutting down): stay stopped.
    if (this.halted) return;
    await this.u.start();
  }

  /** The upstream was stopped: no restart, and one in progress does not start it again. */
  halt(): void {
    this.halted = true;
    this.cancel();
  }

  /** Cancels a scheduled restart. */
  cancel(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }

  /** A failed start, or the loss of a ready server: restart later, or `failed`. */
  failed(reason: string, cause?: unknown): void {
    const u = this.u;
    u.httpStatus = httpStatusOf(cause);
    if (needsSignIn(cause)) {
      // Waiting for the user (src/proxy/oauth), not broken: "sign in to <host>", no retry.
      u.lastError = (cause as Error).message;
      this.steps.log.warn(u.lastError);
      this.steps.clearLists();
      this.steps.setState('needs-auth');
      return;
    }
    u.lastError = reason;
    this.steps.log.error(reason);
    // 401/403: the same credentials fail again; wait for a config change or a restart.
    const next = isAuthRefusal(cause) ? undefined : this.policy.next(u.readyAt);
    this.steps.clearLists();
    if (!next) {
      if (isAuthRefusal(cause))
        this.steps.log.warn(
          `not retrying: credentials refused (HTTP ${u.httpStatus}); waiting for a config change or a restart`,
        );
      this.steps.setState('failed');
      return;
    }
    this.steps.setState('restarting');
    this.steps.log.warn(
      `restarting in ${next.delayMs} ms (attempt ${next.attempt} of ${this.policy.options.maxAttempts})`,
    );
    this.restartTimer = setTimeout(() => {
      u.restarts++;
      void u.start();
    }, next.delayMs);
  }
}
