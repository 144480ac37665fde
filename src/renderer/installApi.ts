/**
 * What the Browse view asks the runtime: one page of the registry, a plan, its confirm, an
 * uninstall. The shapes are the bridge's /install routes (src/proxy/install/installRoutes.ts).
 */
export type { InstallPlanView, RegistryResult } from '../shared/install.js';
import type { SandboxSetting } from '../shared/sandbox.js';
import type {
  InstallConfirmResult,
  InstallPlanRequest,
  InstallPlanView,
  OpenedBundle,
  RegistryResult,
} from '../shared/install.js';

/** A registry server, a bundle's bytes (sent as the raw body), or a kept plan with new values. */
export type PlanRequest = InstallPlanRequest;

type Failure = { ok: false; error: string };

export interface InstallApi {
  search(
    q: string,
    cursor?: string,
  ): Promise<{ ok: true; servers: RegistryResult[]; nextCursor?: string; registry: string } | Failure>;
  plan(req: PlanRequest): Promise<{ ok: true; plan: InstallPlanView } | Failure>;
  /** Installs the plan's server, or (a download plan) answers the downloaded bundle's plan. */
  confirm(planId: string, sandbox?: SandboxSetting | null): Promise<InstallConfirmResult>;
  uninstall(id: string): Promise<{ ok: true } | Failure>;
  /** The ids of the servers installed from a registry or a bundle. */
  installed(): Promise<{ ok: true; ids: string[] } | Failure>;
  /** The app only: `.mcpb` files the OS asked it to open, each with its plan (or why none). */
  onOpenedBundles?(cb: (bundles: OpenedBundle[]) => void): () => void;
}

/** The install API over the bridge's HTTP routes. */
export class HttpInstall implements InstallApi {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T | Failure> {
    const headers: Record<string, string> = this.token ? { Authorization: `Bearer ${this.token}` } : {};
    const raw = body instanceof Uint8Array;
    if (body !== undefined) headers['Content-Type'] = raw ? 'application/octet-stream' : 'application/json';
    try {
      const res = await fetch(this.baseUrl.replace(/\/+$/, '') + path, {
        method,
        headers,
        cache: 'no-store',
        ...(body !== undefined ? { body: raw ? (body as Uint8Array<ArrayBuffer>) : JSON.stringify(body) } : {}),
      });
      const json = (await res.json().catch(() => undefined)) as (T & { ok?: boolean; error?: string }) | undefined;
      if (!json) return { ok: false, error: `The bridge answered HTTP ${res.status}.` };
      if (!res.ok || json.ok === false) return { ok: false, error: json.error ?? `HTTP ${res.status}` };
      return json;
    } catch (err) {
      return {
        ok: false,
        error: `The bridge could not be reached (${err instanceof Error ? err.message : String(err)}).`,
      };
    }
  }

  search(q: string, cursor?: string) {
    const p = new URLSearchParams({ search: q, limit: '20' });
    if (cursor) p.set('cursor', cursor);
    return this.call<{ ok: true; servers: RegistryResult[]; nextCursor?: string; registry: string }>(
      'GET',
      `/install/registry/servers?${p.toString()}`,
    );
  }
  plan(req: PlanRequest) {
    if ('bundle' in req) {
      const q = new URLSearchParams({ fileName: req.bundle.fileName });
      return this.call<{ ok: true; plan: InstallPlanView }>('POST', `/install/bundle?${q.toString()}`, req.bundle.data);
    }
    return this.call<{ ok: true; plan: InstallPlanView }>('POST', '/install/plan', req);
  }
  confirm(planId: string, sandbox?: SandboxSetting | null) {
    return this.call<{ ok: true; serverId: string } | { ok: true; plan: InstallPlanView }>('POST', '/install/confirm', {
      planId,
      ...(sandbox !== undefined ? { sandbox } : {}),
    });
  }
  uninstall(id: string) {
    return this.call<{ ok: true }>('POST', '/install/uninstall', { id });
  }
  async installed(): Promise<{ ok: true; ids: string[] } | Failure> {
    const r = await this.call<{ ok: true; installed: Record<string, unknown> }>('GET', '/install/installed');
    return r.ok ? { ok: true, ids: Object.keys(r.installed ?? {}) } : r;
  }
}
