/**
 * One POST of the streamable HTTP transport under a sign-in (src/proxy/oauth): the current
 * Authorization header first; on a 401/403 the sign-in decides (refresh, step-up, or the
 * user must sign in) and the message is sent once more at most, so a server that keeps
 * refusing can never make a loop.
 */
import type { RequestAuth } from '../oauth/oauthSettings.js';
import { httpStatusOf, type HttpStatusError } from './upstreamErrors.js';

/**
 * `post(authorization)`: sends the message with that Authorization value (or none). Without
 * a refresh due, `post` runs in the same tick: a message sent right after another (the
 * first call after `initialized`) must not overtake it.
 */
export function authedSend(
  auth: RequestAuth,
  post: (authorization: string | undefined) => Promise<void>,
): Promise<void> {
  const sent = auth.authorization();
  return sent instanceof Promise ? sent.then((s) => attempt(auth, post, s)) : attempt(auth, post, sent);
}

async function attempt(
  auth: RequestAuth,
  post: (authorization: string | undefined) => Promise<void>,
  sent: string | undefined,
): Promise<void> {
  try {
    return await post(sent);
  } catch (err) {
    const status = httpStatusOf(err);
    if (status !== 401 && status !== 403) throw err;
    if (!(await auth.refused(status, (err as HttpStatusError).challenge, sent))) throw err;
    return post(await auth.authorization());
  }
}
