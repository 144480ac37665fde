// What a downstream session answers from the hub's cache, and what it keeps of a call in flight.
import type { PendingHandle } from '../jsonrpc/jsonRpcPeer.js';
import type { ListKind } from '../upstream/listCache.js';
import type { Upstream } from '../upstream/upstream.js';

/** The list methods, answered from the hub's merged cache: the list kind and the result field. */
export const LIST_METHODS: Record<string, { kind: ListKind | 'templates'; field: string }> = {
  'tools/list': { kind: 'tools', field: 'tools' },
  'prompts/list': { kind: 'prompts', field: 'prompts' },
  'resources/list': { kind: 'resources', field: 'resources' },
  'resources/templates/list': { kind: 'templates', field: 'resourceTemplates' },
};

/** One downstream request forwarded to an upstream and not yet answered. */
export interface InFlight {
  upstream: Upstream;
  handle?: PendingHandle;
  startedAt: number;
  cancelled?: boolean;
}
