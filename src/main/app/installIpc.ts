/**
 * The install channels of the panel's IPC (the registry, a plan and its confirm, uninstall,
 * the bundles the app was asked to open), registered like the management channels
 * (managementIpc.ts): only the app's own top frame may call them, and every argument is
 * checked before it reaches the {@link InstallIpcApi} (install/installService.ts).
 */
import { IPC_CHANNELS, INSTALL_CHANNELS } from '../../shared/ipcContract.js';
import { MAX_BUNDLE_BYTES, type InstallIpcApi, type InstallPlanRequest } from '../../shared/install.js';
import { isSandboxSetting } from '../../shared/sandbox.js';
import { handleTrusted, type IpcMainLike } from './ipcHandlers.js';

/** Server ids as the proxy accepts them (its SERVER_ID_RE). */
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A plan id: 16 random bytes in hex (installPlans.ts). */
const PLAN_RE = /^[0-9a-f]{32}$/;
const MAX_VALUES = 200;
const MAX_VALUE = 64 * 1024;

const bad = (error: string) => ({ ok: false as const, error });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const shortString = (v: unknown, max: number): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;

/** The values of a plan request, or the error text. */
function valuesOf(v: unknown): Record<string, string> | string {
  if (v === undefined) return {};
  if (!isObject(v)) return 'values must map names to strings';
  const entries = Object.entries(v);
  if (entries.length > MAX_VALUES) return `at most ${MAX_VALUES} values`;
  const out: Record<string, string> = {};
  for (const [k, x] of entries) {
    if (k.length > 500 || typeof x !== 'string' || x.length > MAX_VALUE) return 'values must map names to strings';
    out[k] = x;
  }
  return out;
}

/** A plan request checked field by field, or the error text. */
export function planRequestOf(req: unknown): InstallPlanRequest | string {
  if (!isObject(req)) return 'expected a plan request';
  const values = valuesOf(req.values);
  if (typeof values === 'string') return values;
  if (req.from !== undefined) {
    if (typeof req.from !== 'string' || !PLAN_RE.test(req.from)) return 'invalid plan id';
    return { from: req.from, values };
  }
  if (isObject(req.registry)) {
    const { name, version } = req.registry;
    if (!shortString(name, 200)) return 'invalid server name';
    if (version !== undefined && !shortString(version, 255)) return 'invalid version';
    return { registry: { name, ...(version !== undefined ? { version } : {}) }, values };
  }
  if (isObject(req.bundle)) {
    const { fileName, data } = req.bundle;
    if (!shortString(fileName, 255)) return 'invalid file name';
    if (!(data instanceof Uint8Array)) return "expected the bundle's bytes";
    if (data.byteLength > MAX_BUNDLE_BYTES)
      return `the bundle is refused: it is over ${MAX_BUNDLE_BYTES / (1024 * 1024)} MiB, the largest .mcpb the installer takes`;
    return { bundle: { fileName, data } };
  }
  return 'expected {registry}, {bundle} or {from}';
}

/** Registers the install handlers for the page at `pageUrl`; returns the function that removes them. */
export function registerInstallHandlers(
  ipcMain: IpcMainLike,
  api: InstallIpcApi,
  options: { pageUrl: string | readonly string[] },
): () => void {
  const on = (channel: string, fn: (...args: unknown[]) => unknown) =>
    handleTrusted(ipcMain, channel, options.pageUrl, fn);
  on(IPC_CHANNELS.installSearch, (q, cursor) => {
    if (typeof q !== 'string' || q.length > 200) return bad('the search must be a string of at most 200 characters');
    if (cursor !== undefined && cursor !== null && !shortString(cursor, 1000)) return bad('invalid cursor');
    return api.installSearch(q, typeof cursor === 'string' ? cursor : undefined);
  });
  on(IPC_CHANNELS.installPlan, (req) => {
    const checked = planRequestOf(req);
    return typeof checked === 'string' ? bad(checked) : api.installPlan(checked);
  });
  on(IPC_CHANNELS.installConfirm, (planId, sandbox) => {
    if (typeof planId !== 'string' || !PLAN_RE.test(planId)) return bad('invalid plan id');
    return isSandboxSetting(sandbox) ? api.installConfirm(planId, sandbox) : bad('invalid sandbox');
  });
  on(IPC_CHANNELS.installUninstall, (id) =>
    typeof id === 'string' && ID_RE.test(id) ? api.installUninstall(id) : bad('invalid server id'),
  );
  on(IPC_CHANNELS.installed, () => api.installedServers());
  on(IPC_CHANNELS.installTakeOpened, () => api.takeOpenedBundles());
  return () => {
    for (const ch of INSTALL_CHANNELS) ipcMain.removeHandler(ch);
  };
}
