/**
 * MCP Apps views for the app's page, behind the `mcp:app:*` IPC handlers (appViewIpc.ts): the
 * running bridge's `/apps/views/<key>` routes asked by main (bridgeAsk.ts), so a view's
 * `tools/call` and `resources/read` pass the same approval and pinning and are recorded under
 * the same client (`app view <server> <tool>`) as from a browser. A kept view is handed over
 * with its frame on the app's own sandbox origin (`qiming-app://sandbox/`, appViewProtocol.ts)
 * instead of the bridge's loopback one; a drift (409) comes back with what to accept.
 */
import type { AppViewIpcApi } from '../../shared/ipcContract.js';
import type { AppViewAnswer, AppViewDrift, AppViewResult, KeptAppView } from '../../shared/appView.js';
import { askBridge, type BridgeLocator } from '../runtime/bridgeAsk.js';
import { APP_VIEW_SANDBOX_URL } from './appViewProtocol.js';

export interface AppViewServiceOptions {
  bridge: BridgeLocator;
  /** The sandbox proxy page views are framed from (default `qiming-app://sandbox/sandbox.html`). */
  sandboxUrl?: string;
  /** Per bridge request (default 70 s: a view's call is bounded at 60 s by the bridge). */
  timeoutMs?: number;
}

const path = (key: string, action?: string) => `/apps/views/${encodeURIComponent(key)}${action ? `/${action}` : ''}`;

export class AppViewService implements AppViewIpcApi {
  constructor(private readonly opts: AppViewServiceOptions) {}

  async appView(key: string): Promise<AppViewResult> {
    const r = await this.ask('GET', path(key), undefined);
    if (!r.ok) return r;
    const body = r.json as (KeptAppView & { error?: string; drift?: AppViewDrift }) | undefined;
    if (r.status !== 200 || !body?.resource)
      return {
        ok: false,
        error: body?.error ?? `the bridge answered HTTP ${r.status}`,
        ...(body?.drift ? { drift: body.drift } : {}),
      };
    return { ok: true, view: { ...body, sandbox: this.opts.sandboxUrl ?? APP_VIEW_SANDBOX_URL } };
  }

  appViewCall(key: string, name: string, args: Record<string, unknown>): Promise<AppViewAnswer> {
    return this.answer(path(key, 'call'), { name, arguments: args });
  }

  appViewRead(key: string, uri: string): Promise<AppViewAnswer> {
    return this.answer(path(key, 'read'), { uri });
  }

  appViewAccept(key: string, hash: string): Promise<AppViewAnswer> {
    return this.answer(path(key, 'accept'), { hash });
  }

  private ask(method: string, to: string, body: unknown) {
    return askBridge(this.opts.bridge, method, to, body, this.opts.timeoutMs ?? 70_000);
  }

  /** A POST whose 200 body is the answer (`{ok, result}`, or `{accepted}`); any other status is its error. */
  private async answer(to: string, body: unknown): Promise<AppViewAnswer> {
    const r = await this.ask('POST', to, body);
    if (!r.ok) return r;
    const json = r.json as (AppViewAnswer & { accepted?: string }) | undefined;
    if (r.status !== 200 || !json) return { ok: false, error: json?.error ?? `the bridge answered HTTP ${r.status}` };
    if (json.accepted !== undefined) return { ok: true };
    return json.ok
      ? { ok: true, ...(json.result ? { result: json.result } : {}) }
      : { ok: false, error: json.error ?? 'refused' };
  }
}
