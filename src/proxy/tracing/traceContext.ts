/**
 * W3C Trace Context in an MCP request's `params._meta`, as the OpenTelemetry MCP conventions
 * carry it: `traceparent` and `tracestate`, unprefixed. Read from what a client sent (the
 * remote parent of the runtime's span), written into what the runtime sends a server (its own
 * span as the server's parent). Anything malformed is ignored, as the W3C rules say.
 */
import { createTraceState, isSpanContextValid, type SpanContext } from '@opentelemetry/api';

const TRACEPARENT = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})(-.*)?$/;
/** A longer `tracestate` is dropped rather than parsed (the W3C limit is 32 members of at most 256 characters). */
const MAX_TRACESTATE_CHARS = 512;

/** The remote parent named in `params._meta`, if its `traceparent` is valid. */
export function contextFromMeta(params: Record<string, unknown> | undefined): SpanContext | undefined {
  const meta = params?._meta as Record<string, unknown> | undefined;
  const header = meta?.traceparent;
  if (typeof header !== 'string') return undefined;
  const m = TRACEPARENT.exec(header.trim());
  if (!m || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined)) return undefined;
  const state = meta!.tracestate;
  const ctx: SpanContext = {
    traceId: m[2]!,
    spanId: m[3]!,
    traceFlags: parseInt(m[4]!, 16) & 1,
    isRemote: true,
    ...(typeof state === 'string' && state.length <= MAX_TRACESTATE_CHARS
      ? { traceState: createTraceState(state) }
      : {}),
  };
  return isSpanContextValid(ctx) ? ctx : undefined;
}

/** `params` with `ctx` as its `_meta.traceparent` (and `tracestate`), whatever trace context it carried replaced. */
export function withContextInMeta(params: Record<string, unknown>, ctx: SpanContext): Record<string, unknown> {
  const { traceparent: _p, tracestate: _s, ...meta } = (params._meta as Record<string, unknown> | undefined) ?? {};
  const flags = (ctx.traceFlags & 0xff).toString(16).padStart(2, '0');
  const state = ctx.traceState?.serialize();
  return {
    ...params,
    _meta: {
      ...meta,
      traceparent: `00-${ctx.traceId}-${ctx.spanId}-${flags}`,
      ...(state ? { tracestate: state } : {}),
    },
  };
}
