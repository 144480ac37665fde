/**
 * The install API inside the app: the preload's `install*` methods (IPC to the main process,
 * which asks its bridge's /install routes), and the `.mcpb` files the OS asked the app to
 * open, taken from the main process when it says one came and once at the start (a file
 * opened before the page was loaded waits there).
 */
import type { McpRuntimeApi } from '../shared/ipcContract.js';
import type { OpenedBundle } from '../shared/install.js';
import type { SandboxSetting } from '../shared/sandbox.js';
import type { InstallApi, PlanRequest } from './installApi.js';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A rejected IPC call (a refused sender, a handler that threw) as `{ ok: false, error }`. */
async function settle<T>(call: (() => Promise<T>) | undefined): Promise<T | { ok: false; error: string }> {
  if (!call) return { ok: false, error: 'not supported by this app' };
  try {
    return await call();
  } catch (err) {
    return { ok: false, error: message(err) };
  }
}

type Full = Required<Pick<McpRuntimeApi, 'installSearch' | 'installPlan' | 'installConfirm'>> & McpRuntimeApi;

/** Whether the preload API has the install methods. */
export function hasInstall(api: McpRuntimeApi): api is Full {
  return (
    typeof api.installSearch === 'function' &&
    typeof api.installPlan === 'function' &&
    typeof api.installConfirm === 'function'
  );
}

export class PreloadInstall implements InstallApi {
  constructor(private readonly api: Full) {}

  search(q: string, cursor?: string) {
    return settle(() => this.api.installSearch(q, cursor));
  }
  plan(req: PlanRequest) {
    return settle(() => this.api.installPlan(req));
  }
  confirm(planId: string, sandbox?: SandboxSetting | null) {
    return settle(() => this.api.installConfirm(planId, sandbox));
  }
  uninstall(id: string) {
    const api = this.api;
    return settle(api.installUninstall && (() => api.installUninstall!(id)));
  }
  installed() {
    const api = this.api;
    return settle(api.installedServers && (() => api.installedServers!()));
  }

  onOpenedBundles(cb: (bundles: OpenedBundle[]) => void): () => void {
    const api = this.api;
    if (!api.takeOpenedBundles) return () => undefined;
    let busy = false;
    let again = false;
    const take = async () => {
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      try {
        do {
          again = false;
          const list = await api.takeOpenedBundles!().catch(() => [] as OpenedBundle[]);
          if (list.length > 0) cb(list);
        } while (again);
      } finally {
        busy = false;
      }
    };
    const off = api.onBundleOpened?.(() => void take()) ?? (() => undefined);
    void take();
    return off;
  }
}
