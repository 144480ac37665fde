/**
 * readText: an HTTP response body read as UTF-8 text, bounded, for the client transports'
 * error bodies and JSON replies (leanHttpClientTransport.ts, streamClientTransport.ts).
 */
import type http from 'node:http';

/** Reads a body as text (keeping at most `limit` characters); `complete` is false if cut. */
export function readText(
  res: http.IncomingMessage,
  limit: number,
  cb: (text: string, complete: boolean) => void,
): void {
  let text = '';
  let called = false;
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    if (text.length < limit) text += chunk;
  });
  res.on('error', () => undefined);
  const finish = () => {
    if (called) return;
    called = true;
    cb(text.length > limit ? text.slice(0, limit) : text, res.complete);
  };
  res.on('end', finish);
  res.on('close', finish);
}
