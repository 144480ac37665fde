/**
 * What a hub records and traces its sessions' requests with, opened once its settings say
 * either is on: the activity log (activityLog.ts) and, with tracing on, the tracer around it
 * (tracing/requestTracer.ts, its own start file with the OpenTelemetry SDK, loaded only then).
 * The core reaches both through this one module of the activity file.
 */
import type { ActivitySetting } from '../config/configTypes.js';
import type { ActivityRecorder } from './activityRecorder.js';
import { openActivityLog, type ActivityLog, type ActivityLogOptions } from './activityLog.js';
import type { RequestTracer } from '../tracing/requestTracer.js';
import type { Logger } from '../common/logger.js';

export interface Recorders {
  activity?: ActivityLog;
  tracer?: RequestTracer;
  /** What sessions call: the tracer (around the log), else the log. */
  recorder?: ActivityRecorder;
}

export async function openRecorders(
  activity: ActivitySetting,
  /** The tracer's exporter URL (hub.ts `tracingUrl`); undefined: tracing off. */
  tracingUrl: string | undefined,
  opts: ActivityLogOptions & { logger: Logger; dataDir?: string; tcp?: boolean },
): Promise<Recorders> {
  const log = activity === 'off' ? undefined : openActivityLog(activity, opts);
  const tracer =
    tracingUrl === undefined
      ? undefined
      : (await import('../tracing/requestTracer.js')).openTracer({
          url: tracingUrl,
          logger: opts.logger,
          tcp: opts.tcp,
          inner: log,
        });
  return { activity: log, tracer, recorder: tracer ?? log };
}
