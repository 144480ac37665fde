/**
 * `POST /config/reload`: the app's runtime asks the bridge to re-read its config file and
 * apply the difference (reload.ts). Authenticated like every API route (the caller checks
 * the token first). No body is read. Answers 200 with what was done, 422 with the config's
 * problems when the file is unusable (nothing was changed), 501 when reload is not offered.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorText } from '../common/logger.js';
import { sendError, sendJson } from './body.js';
import type { ReloadResult } from './reload.js';

export const RELOAD_PATH = '/config/reload';

export async function serveReload(
  req: IncomingMessage,
  res: ServerResponse,
  onReload: (() => Promise<ReloadResult>) | undefined,
): Promise<void> {
  if (req.method !== 'POST') {
    sendError(res, 405, 'method not allowed', {}, { Allow: 'POST' });
    return;
  }
  req.resume();
  if (!onReload) {
    sendError(res, 501, 'config reload is not supported');
    return;
  }
  let result: ReloadResult;
  try {
    result = await onReload();
  } catch (err) {
    result = { ok: false, error: errorText(err) };
  }
  sendJson(res, result.ok ? 200 : 422, result);
}
