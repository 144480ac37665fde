/** The callers of `McpRuntime.whenReady()` waiting for the bridge: resolved or rejected all at once. */
import type { BridgeInfo } from './runtimeTypes.js';

export class ReadyWaiters {
  private waiters: { resolve: (i: BridgeInfo) => void; reject: (e: Error) => void }[] = [];

  wait(): Promise<BridgeInfo> {
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  resolveAll(info: BridgeInfo): void {
    for (const w of this.waiters.splice(0)) w.resolve(info);
  }

  rejectAll(err: Error): void {
    for (const w of this.waiters.splice(0)) w.reject(err);
  }
}
