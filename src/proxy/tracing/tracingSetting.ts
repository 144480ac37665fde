// src/proxy/tracing/: OpenTelemetry traces of the requests a hub handles, loaded only when on.
/**
 * Whether this process traces its requests, and where to: the standard OpenTelemetry variables
 * first (`OTEL_SDK_DISABLED`, `OTEL_TRACES_EXPORTER`, `OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT`),
 * then the config's `"tracing": {"endpoint"}`. In the core: the tracer itself
 * (requestTracer.ts, the SDK) is its own start file, loaded only when this says on.
 */
import type { ProxyConfig } from '../config/configTypes.js';

/** On: the exporter's URL, or `''` for the one the variables name (or the OTLP default). Off: undefined. */
export function tracingUrl(config: ProxyConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const x = env.OTEL_TRACES_EXPORTER;
  if (/^\s*true\s*$/i.test(env.OTEL_SDK_DISABLED ?? '') || (x && !/(^|,)\s*otlp\s*(,|$)/.test(x))) return undefined;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT) return '';
  const e = config.tracing?.endpoint;
  return e ? `${e.replace(/\/+$/, '')}/v1/traces` : x ? '' : undefined;
}
