// The progress notifications an SDK v1 client receives, by token, recorded by a notification
// handler of the test's own. The SDK's `onprogress` drops a notification it reads in the same
// chunk as the call's answer (its handler is gone by then); a loaded machine makes that common,
// so a test that checks every step sends its own token and waits for the steps here.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from './waitFor.js';
import { scaled } from './loadScale.js';

export interface ProgressRecorder {
  /** The `progress` values seen so far for `token`, in order. */
  of(token: string): number[];
  /** Waits (bounded) until `count` notifications for `token` arrived; their `progress` values. */
  steps(token: string, count: number, timeoutMs?: number): Promise<number[]>;
}

/** Replaces `client`'s progress handler (its `onprogress` options no longer fire). */
export function recordProgress(client: Client): ProgressRecorder {
  const seen = new Map<string, number[]>();
  client.setNotificationHandler(ProgressNotificationSchema, (n) => {
    const token = String(n.params.progressToken);
    seen.set(token, [...(seen.get(token) ?? []), n.params.progress]);
  });
  const of = (token: string) => seen.get(token) ?? [];
  return {
    of,
    async steps(token, count, timeoutMs = 15_000) {
      await waitFor(
        () => of(token).length >= count,
        scaled(timeoutMs),
        () => `${count} progress notifications for ${token} (have ${JSON.stringify(of(token))})`,
      );
      return of(token);
    },
  };
}
