/**
 * The choice of a downstream session's revision (docs/protocol-eras.md, "Toward clients"): a
 * session starts as 2025-11-25, and before `initialize` its first request other than
 * `server/discover` that carries a valid 2026-07-28 envelope makes it a 2026-07-28 session
 * for good. A discover is answered as 2026-07-28 answers it and chooses nothing, so a client
 * that probes with it and then sends `initialize` in any version the discover offered is a
 * 2025 session; a request whose envelope is refused chooses nothing either.
 */
import type { RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { SessionHost } from '../hub/sessionContracts.js';
import type { CodecSession } from './sessionCodec.js';
import { envelopeError } from './rev2026-07-28/envelope.js';
import { answerDiscover } from './rev2026-07-28/discover.js';
import { SessionCodec2026, takeClientInfo } from './rev2026-07-28/sessionCodec2026.js';

/** Takes a 2025 session's request with the 2026-07-28 envelope (or a discover): true when answered here. */
export async function takeFirst2026Request(hub: SessionHost, s: CodecSession, req: RpcRequest): Promise<boolean> {
  const bad = envelopeError(req);
  if (bad) {
    await s.fail(req.id, bad);
    return true;
  }
  takeClientInfo(s, req);
  if (req.method === 'server/discover') {
    await answerDiscover(hub, s, req);
    return true;
  }
  const codec = new SessionCodec2026(s.peer);
  s.codec = codec;
  return codec.admit(hub, s, req);
}
