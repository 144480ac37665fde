/**
 * What a page's source of views (the bridge over HTTP, the app's preload) turns a kept view
 * into: the {@link McpAppView} that `mountMcpApp` renders, with the host its requests go
 * through; and the error that says the view changed since it was pinned (a drift: the bridge's
 * 409), which carries what the user accepts.
 */
import type { AppViewAnswer, AppViewDrift, KeptAppView } from '../../shared/appView.js';
import type { McpAppHost, McpAppView } from './mountMcpApp.js';

/** Opening a view was refused because it differs from its pin; accept `drift.hash` to show it. */
export class ViewDriftError extends Error {
  constructor(
    message: string,
    readonly drift: AppViewDrift,
  ) {
    super(message);
    this.name = 'ViewDriftError';
  }
}

/** `kept` with `host`; throws when no sandbox origin frames it. */
export function keptView(kept: KeptAppView, host: McpAppHost): McpAppView {
  if (!kept.sandbox) throw new Error('the runtime serves no sandbox origin for views');
  return {
    server: kept.server,
    tool: kept.tool,
    arguments: kept.arguments,
    ...(kept.result ? { result: kept.result } : {}),
    resource: kept.resource,
    sandbox: kept.sandbox,
    host,
  };
}

/** A view request's answer as its result, or thrown as its error. */
export function resultOf(a: AppViewAnswer): Record<string, unknown> {
  if (!a.ok) throw new Error(a.error ?? 'refused');
  return a.result ?? {};
}
