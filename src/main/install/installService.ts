/**
 * The app's side of installing servers, behind the install IPC handlers: every operation is
 * its running bridge's `/install` route (so the app and a browser panel share one installer,
 * its plans, data folder and secret store), a bundle sent as the raw body. It also keeps the
 * `.mcpb` files the OS asked the app to open, each already planned, until the page takes
 * them. Every method resolves; failures come back as `{ ok: false, error }`.
 */
import type {
  InstallConfirmResult,
  InstallIpcApi,
  InstallPlanRequest,
  InstallPlanResult,
  OpenedBundle,
  RegistryPage,
} from '../../shared/install.js';
import type { SandboxSetting } from '../../shared/sandbox.js';
import { readBundleFile } from './bundleFiles.js';
import { askBridge } from '../runtime/bridgeAsk.js';

export interface InstallServiceOptions {
  /** The running bridge; rejects when it is not ready. */
  bridge: () => Promise<{ url: string; token: string }>;
  /** Called when an opened bundle waits to be taken (e.g. a send on `mcp:install:opened` to the window). */
  notify?: () => void;
  /** Per bridge request (default 120 s: a plan may fetch the registry and download a bundle, 60 s each at most). */
  timeoutMs?: number;
}

type Failure = { ok: false; error: string };

/** At most this many opened bundles wait for the page; an older one is dropped past it. */
const MAX_OPENED = 8;

export class InstallService implements InstallIpcApi {
  private opened: OpenedBundle[] = [];

  constructor(private readonly opts: InstallServiceOptions) {}

  installSearch(q: string, cursor?: string): Promise<RegistryPage | Failure> {
    const p = new URLSearchParams({ search: q, limit: '20' });
    if (cursor) p.set('cursor', cursor);
    return this.call<RegistryPage>('GET', `/install/registry/servers?${p.toString()}`);
  }

  installPlan(req: InstallPlanRequest): Promise<InstallPlanResult> {
    if ('bundle' in req) {
      const q = new URLSearchParams({ fileName: req.bundle.fileName });
      return this.call('POST', `/install/bundle?${q.toString()}`, Buffer.from(req.bundle.data));
    }
    return this.call('POST', '/install/plan', req);
  }

  installConfirm(planId: string, sandbox?: SandboxSetting | null): Promise<InstallConfirmResult> {
    return this.call('POST', '/install/confirm', { planId, ...(sandbox !== undefined ? { sandbox } : {}) });
  }

  installUninstall(id: string): Promise<{ ok: true } | Failure> {
    return this.call('POST', '/install/uninstall', { id });
  }

  async installedServers(): Promise<{ ok: true; ids: string[] } | Failure> {
    const r = await this.call<{ ok: true; installed: Record<string, unknown> }>('GET', '/install/installed');
    return r.ok ? { ok: true, ids: Object.keys(r.installed ?? {}) } : r;
  }

  async takeOpenedBundles(): Promise<OpenedBundle[]> {
    const list = this.opened;
    this.opened = [];
    return list;
  }

  /** Reads the `.mcpb` at `path`, plans it, and keeps the plan (or why none) for the page. Never rejects. */
  async openBundleFile(path: string): Promise<OpenedBundle> {
    const file = await readBundleFile(path);
    let opened: OpenedBundle;
    if ('error' in file) opened = file;
    else {
      const r = await this.installPlan({ bundle: { fileName: file.fileName, data: file.data } });
      opened = r.ok ? { fileName: file.fileName, plan: r.plan } : { fileName: file.fileName, error: r.error };
    }
    this.opened.push(opened);
    if (this.opened.length > MAX_OPENED) this.opened.shift();
    this.opts.notify?.();
    return opened;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T | Failure> {
    const r = await askBridge(this.opts.bridge, method, path, body, this.opts.timeoutMs ?? 120_000);
    if (!r.ok) return r;
    const json = r.json as (T & { ok?: boolean; error?: unknown }) | undefined;
    if (!json) return { ok: false, error: `the bridge answered HTTP ${r.status}` };
    if (r.status < 200 || r.status > 299 || json.ok === false)
      return { ok: false, error: typeof json.error === 'string' ? json.error : `the bridge answered HTTP ${r.status}` };
    return json;
  }
}
