/**
 * The app's one read of the user's login-shell PATH (an app started from the Dock, a desktop
 * launcher or the Start menu does not get it). Done once at start, before the bridge is
 * spawned, and handed to everything the app starts through its environment: PATH extended,
 * and `QIMING_LOGIN_PATH` set, so the bridge and the agents' stdio proxies (acp.ts passes it
 * on) never run the shell again. See src/proxy/process/loginPath.ts.
 */
import { discoverLoginPath, handLoginPath, LOGIN_PATH_ENV } from '../../proxy/index.js';
import type { RuntimeLogger } from '../logs/runtimeLogger.js';

/** Reads the login-shell PATH into `env` unless it is there already (set by whoever started us). */
export async function adoptLoginPath(
  env: NodeJS.ProcessEnv,
  logger: Pick<RuntimeLogger, 'info' | 'warn'>,
): Promise<void> {
  if (env[LOGIN_PATH_ENV] !== undefined) return;
  const lp = await discoverLoginPath({ env });
  if (lp.source === 'fallback') logger.warn(lp.note);
  else logger.info(lp.note);
  handLoginPath(env, lp);
}
