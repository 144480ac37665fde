/**
 * The resource side of a modern session's `subscriptions/listen` (listenSet.ts): each URI in
 * `resourceSubscriptions` is held in the hub's subscription table for the session, on the
 * server that owns it, whatever that server's era (subscriptionTable.ts: reference-counted,
 * a 2025 server gets `resources/subscribe`, a 2026 one its resource listen). Several listens
 * of one session asking for the same URI hold it once; the last one to end releases it.
 */
import type { RoutingSession, SessionHost } from '../../hub/sessionContracts.js';

export interface ResourceHolder {
  /** True when `uri` is now held (the server accepted it); false when not (unknown URI, refused). */
  hold(uri: string): Promise<boolean>;
  release(uri: string): void;
}

export function resourceHolder(hub: SessionHost, s: RoutingSession): ResourceHolder {
  const held = new Map<string, { count: number; ok: Promise<boolean>; release: () => void }>();
  return {
    async hold(uri) {
      let h = held.get(uri);
      if (!h) {
        await hub.waitReady(s.scope);
        h = held.get(uri);
      }
      if (!h) {
        const u = hub.resourceOwner(uri, s.scope);
        const entry = {
          count: 0,
          ok: u ? hub.subscribe(u, uri, s, { uri }).then((r) => !('error' in r)) : Promise.resolve(false),
          release: () => void (u && hub.unsubscribe(u, uri, s)),
        };
        held.set(uri, (h = entry));
      }
      h.count++;
      if (await h.ok) return true;
      if (--h.count === 0 && held.get(uri) === h) held.delete(uri);
      return false;
    },
    release(uri) {
      const h = held.get(uri);
      if (!h || --h.count > 0) return;
      held.delete(uri);
      h.release();
    },
  };
}
