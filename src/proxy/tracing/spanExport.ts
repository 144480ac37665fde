/**
 * Where the spans go: the SDK's tracer provider with a batch processor and the OTLP/HTTP JSON
 * exporter, its resource `service.name` (`OTEL_SERVICE_NAME`, else `qiming-mcp-runtime`). The
 * exporter reads the standard variables itself (endpoint, headers, timeout) unless the config
 * named a URL. Nothing is registered globally. A failing collector is logged once until it
 * answers again, never on stdout; closing flushes within CLOSE_DEADLINE_MS, then gives up.
 */
import type { Tracer } from '@opentelemetry/api';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { Logger } from '../common/logger.js';
import { redactUrl } from '../config/redact.js';

declare const __QIMING_VERSION__: string | undefined;
const VERSION = typeof __QIMING_VERSION__ === 'string' ? __QIMING_VERSION__ : '0.0.0-dev';

/**
 * How long a stop waits for the last spans to reach the collector: well within the shortest
 * stop a proxy gets (the bridge's 40 % of the app's 5 s), while the servers stop beside it.
 */
export const CLOSE_DEADLINE_MS = 1_000;
/** One export's bound (`OTEL_EXPORTER_OTLP_TIMEOUT` overrides it). */
const EXPORT_TIMEOUT_MS = 5_000;
/** Spans wait at most this long for their batch (`OTEL_BSP_SCHEDULE_DELAY`, as the SDK specification names it). */
const SCHEDULE_DELAY_MS = 5_000;
/** Spans kept while the collector is slow or away; past it new ones are dropped. */
const MAX_QUEUE = 2_048;

export interface SpanExport {
  readonly tracer: Tracer;
  close(): Promise<void>;
}

export function openSpanExport(url: string, logger: Logger, env: NodeJS.ProcessEnv = process.env): SpanExport {
  const exporter = new OTLPTraceExporter({
    ...(url ? { url } : {}),
    ...(env.OTEL_EXPORTER_OTLP_TIMEOUT || env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT
      ? {}
      : { timeoutMillis: EXPORT_TIMEOUT_MS }),
  });
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME || 'qiming-mcp-runtime',
      'service.version': VERSION,
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: watched(exporter, logger),
        scheduledDelayMillis: Number.isFinite(delay) && delay > 0 ? delay : SCHEDULE_DELAY_MS,
        maxQueueSize: MAX_QUEUE,
      }),
    ],
  });
  logger.info(`tracing on: spans to ${url ? redactUrl(url) : 'the endpoint of the OTEL_EXPORTER_OTLP_* variables'}`);
  return {
    tracer: provider.getTracer('qiming-mcp-runtime', VERSION),
    close: async () => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), CLOSE_DEADLINE_MS);
        timer.unref();
      });
      const flushed = provider.shutdown().then(
        () => true,
        () => true,
      );
      if (!(await Promise.race([flushed, late])))
        logger.warn(`tracing: spans not delivered within ${CLOSE_DEADLINE_MS} ms of the stop were dropped`);
      clearTimeout(timer);
    },
  };
}

/** `exporter`, its failures logged: the first of a run, not each retry. */
function watched(exporter: SpanExporter, logger: Logger): SpanExporter {
  let failing = false;
  return {
    export: (spans, done) =>
      exporter.export(spans, (result) => {
        const ok = result.code === 0;
        if (!ok && !failing) logger.warn(`tracing: spans not delivered: ${result.error?.message ?? 'export failed'}`);
        else if (ok && failing) logger.info('tracing: the collector takes spans again');
        failing = !ok;
        done(result);
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
