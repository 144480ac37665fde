/**
 * The bridge's install routes, behind the same token, Host and Origin gate as every route
 * (httpBridgeServer.ts checks those first) and the same CSRF rules as the config routes
 * (a change needs a JSON body and an Origin header):
 *
 *   GET  /install/registry/servers?search=&cursor=&limit=   one page of the registry, with "installed" and "update"
 *   GET  /install/registry/versions?name=                   one server's versions
 *   POST /install/plan      {registry: {name, version?, package?, remote?}, values?}   a plan (nothing written)
 *   POST /install/bundle?fileName=   the .mcpb's bytes as the body (application/octet-stream or application/zip)
 *                                    a plan for a .mcpb, read streamed up to MAX_BUNDLE_BYTES (413 past it)
 *   POST /install/plan      {bundle: {fileName, data: <base64>}, values?}              the same for a small .mcpb
 *   POST /install/plan      {from: planId, values}          a kept plan made again with new values
 *   POST /install/confirm   {planId, sandbox?}              carry the plan out (a stdio entry with the `sandbox`
 *                                                           given), then apply the config; a download
 *                                                           plan (a registry's mcpb) answers the bundle's plan
 *   POST /install/uninstall {id}                            remove the entry, its bundle folder and record
 *   GET  /install/installed                                 the install records
 *
 * Errors are `{ok: false, error}` with a status: 400 bad input, 404 unknown, 413 a bundle over
 * the limit, 502/504 the registry failed or was too slow.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { sendError, sendJson } from '../bridge/body.js';
import { readBody, readJsonBody, sendBodyFailure } from '../bridge/body.js';
import { isPlainObject } from '../config/configEntry.js';
import { readConfigDocument } from '../config/configFile.js';
import { RUNTIME_VAR_NAMES } from '../config/defaultConfig.js';
import { Logger } from '../common/logger.js';
import type { ConfigReloadResult } from '../../shared/status.js';
import { MAX_BUNDLE_BYTES } from '../../shared/install.js';
import { isSandboxSetting } from '../../shared/sandbox.js';
import { InstallError } from './installError.js';
import { InstallPlans } from './installPlans.js';
import { asLiteral } from './literal.js';
import { RegistryClient } from './registryClient.js';
import { registryBaseUrl } from './registryUrl.js';
import type { ServerJson } from './serverJson.js';

export interface InstallRoutesOptions {
  configFile: string | undefined;
  applyWritten?: () => Promise<ConfigReloadResult>;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  env?: NodeJS.ProcessEnv;
  /** The CSRF rules of a change (configRoutes.ts), handed in so this file does not import its caller. */
  writeGate(req: IncomingMessage, types?: readonly string[]): { status: number; message: string } | undefined;
}

const log = Logger.create('install');
/** The body types a bundle upload takes: none is one a plain HTML form can send, so a page elsewhere cannot. */
const BUNDLE_TYPES = ['application/octet-stream', 'application/zip', 'application/x-zip-compressed'];
const MIB = 1024 * 1024;
const plansByFile = new Map<string, InstallPlans>();

/** The data folder: `$QIMING_DATA_DIR`, else `mcp/` beside the config file (the headless bridge's default). */
function dataDirOf(configFile: string, env: NodeJS.ProcessEnv): { dir: string; ref: string } {
  const fromEnv = env[RUNTIME_VAR_NAMES.dataDir];
  if (fromEnv) return { dir: fromEnv, ref: `\${${RUNTIME_VAR_NAMES.dataDir}}` };
  const dir = join(dirname(configFile), 'mcp');
  return { dir, ref: asLiteral(dir) };
}

function registrySetting(configFile: string): unknown {
  try {
    return readConfigDocument(configFile).doc.registryUrl;
  } catch {
    return undefined;
  }
}

function plansFor(configFile: string, env: NodeJS.ProcessEnv): InstallPlans {
  let plans = plansByFile.get(configFile);
  if (!plans) {
    const data = dataDirOf(configFile, env);
    plans = new InstallPlans({
      configFile,
      dataDir: data.dir,
      dataDirRef: data.ref,
      env,
      registry: () => new RegistryClient(registryBaseUrl(env, registrySetting(configFile))),
    });
    plansByFile.set(configFile, plans);
  }
  return plans;
}

/** What the Browse view shows of one server. */
function resultView(server: ServerJson, installed: string | undefined, installedVersion: string | undefined) {
  const transports = [
    ...new Set([
      ...(server.packages ?? []).map((p) => `${p.registryType} (${p.transport.type})`),
      ...(server.remotes ?? []).map((r) => `remote (${r.type})`),
    ]),
  ];
  return {
    name: server.name,
    title: server.title,
    description: server.description,
    version: server.version,
    publisher: server.name.split('/')[0],
    repository: server.repository?.url,
    transports,
    installed,
    installedVersion,
    update:
      installed !== undefined && installedVersion !== undefined && installedVersion !== server.version
        ? server.version
        : undefined,
  };
}

function fail(res: ServerResponse, err: unknown): void {
  if (err instanceof InstallError) {
    sendError(res, err.status, err.message);
    return;
  }
  log.warn(`install route failed: ${err instanceof Error ? err.message : String(err)}`);
  sendError(res, 500, `install failed: ${err instanceof Error ? err.message : String(err)}`);
}

function valuesOf(v: unknown): Record<string, string> | undefined {
  if (v === undefined) return {};
  if (!isPlainObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') return undefined;
    out[k] = x;
  }
  return out;
}

/** Handles `path` when it is an install route; false when it is not. */
export async function handleInstallRoute(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  url: URL,
  o: InstallRoutesOptions,
): Promise<boolean> {
  const p = path.replace(/\/$/, '');
  if (!p.startsWith('/install')) return false;
  if (o.configFile === undefined) {
    sendError(
      res,
      409,
      'the bridge was started with inline JSON (--config {...}): there is no config file to install into',
    );
    return true;
  }
  const env = o.env ?? process.env;
  const plans = plansFor(o.configFile, env);
  const method = req.method ?? 'GET';
  try {
    if (p === '/install/registry/servers' || p === '/install/registry/versions' || p === '/install/installed') {
      if (method !== 'GET') return (sendError(res, 405, 'method not allowed', {}, { Allow: 'GET' }), true);
      if (p === '/install/installed') return (sendJson(res, 200, { ok: true, installed: plans.records() }), true);
      const client = new RegistryClient(registryBaseUrl(env, registrySetting(o.configFile)));
      const records = plans.records();
      const view = (s: ServerJson) => {
        const id = plans.installedAs(s.name);
        return resultView(s, id, id === undefined ? undefined : records[id]?.version);
      };
      if (p === '/install/registry/versions') {
        const name = url.searchParams.get('name');
        if (!name) return (sendError(res, 400, 'expected ?name=<server name>'), true);
        const versions = await client.versions(name);
        sendJson(res, 200, { ok: true, registry: client.baseUrl, versions: versions.map((v) => view(v.server)) });
        return true;
      }
      const page = await client.search({
        search: url.searchParams.get('search') ?? undefined,
        cursor: url.searchParams.get('cursor') ?? undefined,
        limit: Number(url.searchParams.get('limit') ?? 30) || 30,
      });
      sendJson(res, 200, {
        ok: true,
        registry: client.baseUrl,
        servers: page.servers.map((e) => view(e.server)),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      });
      return true;
    }
    if (p === '/install/bundle') {
      if (method !== 'POST') return (sendError(res, 405, 'method not allowed', {}, { Allow: 'POST' }), true);
      return (await uploadBundle(req, res, url, plans, o), true);
    }
    const kind =
      p === '/install/plan'
        ? 'plan'
        : p === '/install/confirm'
          ? 'confirm'
          : p === '/install/uninstall'
            ? 'uninstall'
            : undefined;
    if (!kind) return (sendError(res, 404, 'not found'), true);
    if (method !== 'POST') return (sendError(res, 405, 'method not allowed', {}, { Allow: 'POST' }), true);
    const refused = o.writeGate(req);
    if (refused) {
      req.resume();
      return (sendError(res, refused.status, refused.message), true);
    }
    const read = await readJsonBody(req, o.maxBodyBytes, o.bodyTimeoutMs);
    if (!read.ok) return (sendBodyFailure(res, read.reason, o.maxBodyBytes), true);
    const body = read.value;
    if (!isPlainObject(body)) return (sendError(res, 400, 'the body must be a JSON object'), true);
    if (kind === 'plan') {
      const values = valuesOf(body.values);
      if (!values) return (sendError(res, 400, 'values must map names to strings'), true);
      const reg = body.registry;
      const bundle = body.bundle;
      if (isPlainObject(reg) && typeof reg.name === 'string') {
        const src = {
          name: reg.name,
          ...(typeof reg.version === 'string' ? { version: reg.version } : {}),
          ...(typeof reg.package === 'number' ? { package: reg.package } : {}),
          ...(typeof reg.remote === 'number' ? { remote: reg.remote } : {}),
        };
        sendJson(res, 200, { ok: true, plan: await plans.planRegistry(src, values) });
        return true;
      }
      if (typeof body.from === 'string') {
        sendJson(res, 200, { ok: true, plan: await plans.replan(body.from, values) });
        return true;
      }
      if (isPlainObject(bundle) && typeof bundle.data === 'string') {
        const fileName = typeof bundle.fileName === 'string' ? bundle.fileName : 'bundle.mcpb';
        const buffer = Buffer.from(bundle.data, 'base64');
        sendJson(res, 200, { ok: true, plan: await plans.planBundleFile(fileName, buffer, values) });
        return true;
      }
      return (
        sendError(
          res,
          400,
          'expected {"registry": {"name": ...}}, {"bundle": {"fileName", "data"}} or {"from": "<planId>"}',
        ),
        true
      );
    }
    if (kind === 'confirm') {
      const sandbox: unknown = body.sandbox;
      if (typeof body.planId !== 'string' || !isSandboxSetting(sandbox))
        return (sendError(res, 400, 'expected {"planId": "<id>", "sandbox"?: true | false | null | {...}}'), true);
      const done = await plans.confirm(body.planId, sandbox);
      if ('plan' in done) {
        log.info(`downloaded the bundle of ${done.plan.name}; its plan waits for a confirm`);
        return (sendJson(res, 200, { ok: true, plan: done.plan }), true);
      }
      log.info(`installed ${done.serverId}${done.replaced ? ' (re-installed)' : ''}`);
      const applied = o.applyWritten ? await o.applyWritten() : undefined;
      sendJson(res, 200, { ok: true, ...done, ...(applied ? { applied } : {}) });
      return true;
    }
    if (typeof body.id !== 'string') return (sendError(res, 400, 'expected {"id": "<server id>"}'), true);
    const removed = await plans.uninstall(body.id);
    log.info(`uninstalled ${body.id}`);
    const applied = o.applyWritten ? await o.applyWritten() : undefined;
    sendJson(res, 200, { ok: true, ...removed, ...(applied ? { applied } : {}) });
    return true;
  } catch (err) {
    fail(res, err);
    return true;
  }
}

/**
 * `POST /install/bundle`: the bundle as the raw body, read streamed and refused as soon as it
 * passes MAX_BUNDLE_BYTES (a declared Content-Length over it before anything is read), so a
 * bundle is held once, never as base64 text inside JSON.
 */
async function uploadBundle(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  plans: InstallPlans,
  o: InstallRoutesOptions,
): Promise<void> {
  const refused = o.writeGate(req, BUNDLE_TYPES);
  if (refused) {
    req.resume();
    return sendError(res, refused.status, refused.message);
  }
  const read = await readBody(req, MAX_BUNDLE_BYTES, o.bodyTimeoutMs);
  if (!read.ok) {
    if (read.reason === 'too-large')
      return sendError(
        res,
        413,
        `the bundle is refused: it is over ${MAX_BUNDLE_BYTES / MIB} MiB (${MAX_BUNDLE_BYTES} bytes), the largest .mcpb the installer takes`,
      );
    return sendBodyFailure(res, read.reason, MAX_BUNDLE_BYTES);
  }
  if (read.bytes.length === 0) return sendError(res, 400, 'the body must be the .mcpb file');
  const name = url.searchParams.get('fileName') || 'bundle.mcpb';
  const fileName = name.replace(/[\\/]/g, '_').slice(0, 255);
  sendJson(res, 200, { ok: true, plan: await plans.planBundleFile(fileName, read.bytes, {}) });
}
