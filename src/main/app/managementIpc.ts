/**
 * The management channels of the panel's IPC (config, logs, Test, agents), registered like
 * the status channels (ipcHandlers.ts): only the app's own top frame may call them, and every
 * argument is checked before it reaches the {@link ManagementIpcApi} (managementService.ts).
 * Plain logic over `IpcMainLike`: tested with fakes, no Electron needed.
 */
import { IPC_CHANNELS, MANAGEMENT_CHANNELS, type ManagementIpcApi } from '../../shared/ipcContract.js';
import { handleTrusted, type IpcMainLike } from './ipcHandlers.js';
import { depthMessage, valueNestsDeeper } from '../../proxy/index.js';
import { ACTIVITY_OUTCOMES, type ActivityQuery } from '../../shared/activity.js';

/** Server ids as the proxy accepts them (its SERVER_ID_RE). */
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Largest snippet or change accepted over IPC. */
const MAX_TEXT = 1024 * 1024;

const bad = (error: string) => ({ ok: false, error });
const validId = (id: unknown): id is string => typeof id === 'string' && ID_RE.test(id);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The activity filters of an IPC call, checked field by field; a wrong one is the error text. */
function activityQuery(v: unknown): ActivityQuery | string {
  if (v === undefined) return {};
  if (!isObject(v)) return 'expected an object of filters';
  const q: ActivityQuery = {};
  for (const key of ['server', 'client', 'text'] as const) {
    const s = v[key];
    if (s === undefined) continue;
    if (typeof s !== 'string' || s.length > 200) return `${key} must be a string of at most 200 characters`;
    q[key] = s;
  }
  if (v.outcome !== undefined) {
    if (!(ACTIVITY_OUTCOMES as readonly unknown[]).includes(v.outcome))
      return `outcome must be one of ${ACTIVITY_OUTCOMES.join(', ')}`;
    q.outcome = v.outcome as ActivityQuery['outcome'];
  }
  for (const key of ['before', 'limit'] as const) {
    const n = v[key];
    if (n === undefined) continue;
    if (!Number.isInteger(n) || (n as number) < 1) return `${key} must be a positive integer`;
    q[key] = n as number;
  }
  return q;
}

/** Registers the management handlers for the page at `pageUrl`; returns the function that removes them. */
export function registerManagementHandlers(
  ipcMain: IpcMainLike,
  api: ManagementIpcApi,
  options: { pageUrl: string | readonly string[] },
): () => void {
  const on = (channel: string, fn: (...args: unknown[]) => unknown) =>
    handleTrusted(ipcMain, channel, options.pageUrl, fn);
  on(IPC_CHANNELS.configGet, () => api.getConfig());
  on(IPC_CHANNELS.configChange, (change) => {
    if (!isObject(change)) return bad('malformed change');
    // Checked before JSON.stringify, which would overflow the stack on a value nested that deep.
    if (valueNestsDeeper(change)) return bad(depthMessage('the change'));
    if (JSON.stringify(change).length > MAX_TEXT) return bad('malformed change');
    return api.changeConfig(change as never);
  });
  on(IPC_CHANNELS.configPreviewImport, (text) => {
    if (typeof text !== 'string' || text.length > MAX_TEXT)
      return { ok: false, add: [], skip: [], error: 'expected the snippet text' };
    return api.previewImport(text);
  });
  on(IPC_CHANNELS.serverLog, (id, limit) => {
    if (!validId(id)) return { ...bad('invalid server id'), lines: [], truncated: false };
    return api.serverLog(id, typeof limit === 'number' ? limit : undefined);
  });
  on(IPC_CHANNELS.serverTools, (id) => (validId(id) ? api.listTools(id) : { ...bad('invalid server id'), tools: [] }));
  on(IPC_CHANNELS.toolCall, (id, name, args) => {
    if (!validId(id) || typeof name !== 'string' || name === '') return bad('invalid server id or tool name');
    if (!isObject(args)) return bad('the arguments must be an object');
    return api.callTool(id, name, args);
  });
  on(IPC_CHANNELS.agentsGet, () => api.getAgents());
  on(IPC_CHANNELS.activity, (query) => {
    const q = activityQuery(query);
    return typeof q === 'string' ? bad(q) : api.activity(q);
  });
  on(IPC_CHANNELS.agentsSet, (agent, ids) => {
    if (typeof agent !== 'string') return bad('invalid agent name');
    if (ids !== null && !(Array.isArray(ids) && ids.every(validId)))
      return bad('expected a list of server ids or null');
    return api.setAgentServers(agent, ids as string[] | null);
  });
  return () => {
    for (const ch of MANAGEMENT_CHANNELS) ipcMain.removeHandler(ch);
  };
}
