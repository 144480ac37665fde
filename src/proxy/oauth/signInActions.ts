/**
 * The bridge's sign-in and sign-out actions (bridge/serverActions.ts) over the registry:
 * sign-in starts the flow (or joins the one running) and answers with the URL once the
 * authorization server named it; sign-out forgets the server's tokens and registration.
 */
import type { ServerEntry } from '../config/config.js';
import { errorText } from '../common/logger.js';
import type { OAuthRegistry } from './oauthRegistry.js';
import type { ServerAuth } from './serverAuth.js';

interface Result {
  ok: boolean;
  error?: string;
  url?: string;
  signedIn?: boolean;
  status?: number;
}

/** `afterSignOut`: the server restarts, so its sessions stop using what was forgotten. */
export function signInActions(
  registry: OAuthRegistry,
  entryOf: (id: string) => ServerEntry | undefined,
  afterSignOut?: (id: string) => void,
) {
  const authOf = async (id: string): Promise<ServerAuth | Result> => {
    const entry = entryOf(id);
    if (!entry) return { ok: false, error: `no server "${id}"`, status: 404 };
    const auth = entry.kind === 'remote' ? await registry.forEntry(entry) : undefined;
    return auth ?? { ok: false, error: `server "${id}" does not use sign-in`, status: 409 };
  };
  return {
    onSignIn: async (id: string, open: boolean): Promise<Result> => {
      const auth = await authOf(id);
      if (!('signIn' in auth)) return auth;
      try {
        const { url, done } = await auth.signIn(open);
        done.catch(() => undefined);
        if (url) return { ok: true, url };
        await done;
        return { ok: true, signedIn: true };
      } catch (err) {
        return { ok: false, error: `sign-in to ${auth.host} failed: ${errorText(err)}` };
      }
    },
    onSignOut: async (id: string): Promise<Result> => {
      const auth = await authOf(id);
      if (!('signOut' in auth)) return auth;
      auth.signOut();
      afterSignOut?.(id);
      return { ok: true };
    },
  };
}
