/**
 * The cap on a tool result in an aggregate session (`maxResultBytes`, top level and per
 * server, the server's winning; decisions/0033-result-cap.md): which cap a call has, and
 * whether its result is over it. Every call of an aggregate pays this check, so it is all
 * that sits in the core; the cut, the store of full results and their reading are in the
 * lazily loaded resultStore.ts, reached only by a result over its cap.
 *
 * A result's size is the UTF-8 length of its JSON: text, structuredContent, and image,
 * audio and resource blobs by their base64 length, as they travel.
 */
import type { EntryCommon, ProxyConfig } from '../../config/configTypes.js';
import { DEFAULT_MAX_RESULT_BYTES } from '../../config/configEntry.js';

/** The scheme of the URIs under which a session's full results are read back. */
export const KEPT_RESULT_SCHEME = 'qiming-result://';

type CapConfig = Pick<ProxyConfig, 'maxResultBytes' | 'servers'>;

/** The cap on results of `entry`'s tools in an aggregate, or undefined when it is `"off"`. */
export function resultCapOf(config: Pick<ProxyConfig, 'maxResultBytes'>, entry: EntryCommon): number | undefined {
  const cap = entry.maxResultBytes ?? config.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  return cap === 'off' ? undefined : cap;
}

/** Whether some result of an aggregate of `config` may be cut (and so read back as a resource). */
export function resultCapOn(config: CapConfig): boolean {
  if ((config.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES) !== 'off') return true;
  return config.servers.some((s) => s.maxResultBytes !== undefined && s.maxResultBytes !== 'off');
}

/** The size of `result` in bytes when it is over `cap`; undefined when it fits. */
export function sizeOverCap(result: Record<string, unknown>, cap: number): number | undefined {
  const json = JSON.stringify(result);
  // One UTF-16 unit is one to three UTF-8 bytes: a small result is decided without counting bytes.
  if (json.length * 3 <= cap) return undefined;
  const bytes = Buffer.byteLength(json, 'utf8');
  return bytes > cap ? bytes : undefined;
}

/**
 * An aggregate's capabilities with `resources`, while results may be cut: a client that
 * checks capabilities (the SDK's strict mode, hosts that offer resource tools only to
 * servers that have them) then lets its user read a full result back.
 */
export function withKeptResults(capabilities: Record<string, unknown>, config: CapConfig): Record<string, unknown> {
  if (capabilities.resources || !resultCapOn(config)) return capabilities;
  return { ...capabilities, resources: { listChanged: true } };
}
