/**
 * Install with consent: a plan first, then a confirm with the plan's id. A plan holds the
 * exact entry that will be written and shows what it will run (the command line or URL, the
 * env var and header names with secret values masked, where it comes from, the checksum,
 * the runtime it needs and whether this machine has it, and for a re-install what changes).
 * Nothing is unpacked, written or started before the confirm; a plan is used once and
 * expires after PLAN_TTL_MS. Used by the bridge's /install routes.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { EntryDraft, EntryView } from '../../shared/configContract.js';
import type { InstallPlanView } from '../../shared/install.js';
import { ConfigStore } from '../config/configStore.js';
import { SERVER_ID_RE } from '../config/configEntry.js';
import { findCommand, mergePath } from '../process/commandResolver.js';
import { loginPath } from '../process/loginPath.js';
import { boundedGet } from './boundedFetch.js';
import { inspectBundle, MAX_BUNDLE_BYTES, unpackBundle } from './bundleArchive.js';
import { bundleCommand, bundleInputs, checkManifest, type BundleManifest } from './bundleManifest.js';
import { commandLine } from './commandLine.js';
import { InstallError } from './installError.js';
import { readRecords, writeRecords, type InstallRecord } from './installRecords.js';
import type { RegistryClient, RegistryEntry } from './registryClient.js';
import type { ServerJson } from './serverJson.js';
import { packageEntry, remoteEntry, type EntryPlan, type Values } from './serverJsonEntry.js';
import { forgetSecrets, secretsKeptWhere, storeSecretValue } from './secretValue.js';
import { asLiteral, fromLiteral } from './literal.js';

export const PLAN_TTL_MS = 10 * 60_000;
const MAX_PLANS = 16;
/** The bundle bytes all kept plans may hold together: the oldest bundle plans go first past it. */
const MAX_KEPT_BUNDLE_BYTES = 2 * MAX_BUNDLE_BYTES;
const MASK = '********';
const BUNDLE_DOWNLOAD_TIMEOUT_MS = 60_000;

export interface InstallContext {
  configFile: string;
  /** The runtime's data folder: bundles go in `<dataDir>/bundles/<id>`, records in `installs.json`. */
  dataDir: string;
  /** How the entry names the data folder: `${QIMING_DATA_DIR}` when that variable is the folder. */
  dataDirRef: string;
  env: NodeJS.ProcessEnv;
  registry(): RegistryClient;
}

/** What the consent dialog shows. */
export type PlanView = InstallPlanView;

/** What a plan was made from, so it can be made again with other values (`replan`). */
type PlanOrigin = { registry: RegistrySource } | { bundleFile: { fileName: string; buffer: Buffer } };

interface StoredPlan {
  view: PlanView;
  origin: PlanOrigin;
  entry: EntryDraft;
  secretKeys: EntryPlan['secretKeys'];
  record: Omit<InstallRecord, 'installedAt'>;
  bundle?: { buffer: Buffer; folder: string };
  replaces: boolean;
  expires: number;
}

export interface RegistrySource {
  name: string;
  version?: string;
  /** Which package (index) or remote (`remote: true`) to take; default the first package, else the first remote. */
  package?: number;
  remote?: number;
}

/** A server id for `name`: its part after the slash, made to fit the id rules. */
export function serverIdFor(name: string, taken: (id: string) => boolean, own?: string): string {
  const tail = (name.split('/').pop() ?? name).replace(/[^A-Za-z0-9_.-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  const base = (tail || 'server').slice(0, 56);
  if (own !== undefined) return own;
  let id = base;
  for (let n = 2; taken(id); n++) id = `${base}-${n}`;
  if (!SERVER_ID_RE.test(id)) throw new InstallError(`cannot make a server id from "${name}"`);
  return id;
}

function mask(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join(MASK);
  return out;
}

export class InstallPlans {
  private readonly plans = new Map<string, StoredPlan>();

  constructor(private readonly ctx: InstallContext) {}

  private store(): ConfigStore {
    return new ConfigStore(this.ctx.configFile, this.ctx.env);
  }

  private servers(): EntryView[] {
    return this.store().view().servers;
  }

  /** The records of what was installed, by server id. */
  records(): Record<string, InstallRecord> {
    return readRecords(this.ctx.dataDir);
  }

  /** The installed server id for a registry or bundle name, if any. */
  installedAs(name: string): string | undefined {
    const servers = new Set(this.servers().map((s) => s.id));
    return Object.entries(this.records()).find(([id, r]) => r.name === name && servers.has(id))?.[0];
  }

  /** A plan for installing `src` from the registry. */
  async planRegistry(src: RegistrySource, values: Values): Promise<PlanView> {
    const client = this.ctx.registry();
    const versions = await client.versions(src.name);
    const chosen: RegistryEntry | undefined = src.version
      ? versions.find((v) => v.server.version === src.version)
      : (versions.find((v) => v.official?.isLatest) ?? versions[versions.length - 1]);
    if (!chosen) throw new InstallError(`the registry has no ${src.name}${src.version ? ` ${src.version}` : ''}`, 404);
    const server = chosen.server;
    const source = { kind: 'registry' as const, registry: client.baseUrl, name: server.name, version: server.version };
    const pkgIndex = src.remote === undefined ? (src.package ?? 0) : undefined;
    const pkg = pkgIndex === undefined ? undefined : server.packages?.[pkgIndex];
    const remote = src.remote !== undefined ? server.remotes?.[src.remote] : pkg ? undefined : server.remotes?.[0];
    if (!pkg && !remote) throw new InstallError(`${server.name} has nothing to install (no packages or remotes)`);
    if (pkg?.registryType === 'mcpb') {
      if (!pkg.fileSha256) throw new InstallError(`${server.name}: its mcpb package has no fileSha256 to check`);
      const buffer = await boundedGet(pkg.identifier, `the bundle ${pkg.identifier}`, {
        timeoutMs: BUNDLE_DOWNLOAD_TIMEOUT_MS,
        maxBytes: MAX_BUNDLE_BYTES,
      });
      const sha = createHash('sha256').update(buffer).digest('hex');
      if (sha !== pkg.fileSha256)
        throw new InstallError(
          `${server.name}: the downloaded bundle's sha256 is ${sha}, not the ${pkg.fileSha256} its server.json gives: refused`,
        );
      return this.planBundleBuffer(buffer, values, {
        source,
        checksum: 'sha256 verified against server.json',
        server,
        origin: { registry: src },
      });
    }
    const plan = pkg ? packageEntry(server, pkg, values) : remoteEntry(server, remote!, values);
    const checksum = pkg?.fileSha256
      ? 'sha256 given (checked by the package manager)'
      : 'none: the package manager fetches it';
    return this.keep(
      server.name,
      server.version,
      server.title,
      plan,
      source,
      remote ? 'none: a remote server' : checksum,
      {
        source: 'registry',
        name: server.name,
        version: server.version,
        registry: client.baseUrl,
      },
      values,
      { registry: src },
    );
  }

  /** A plan for a bundle file the user opened. */
  async planBundleFile(fileName: string, buffer: Buffer, values: Values): Promise<PlanView> {
    return this.planBundleBuffer(buffer, values, {
      source: { kind: 'bundle', file: fileName },
      checksum: '',
      origin: { bundleFile: { fileName, buffer } },
    });
  }

  /** Plan `planId` made again from what it was made of, with `values`; the old plan is dropped. */
  async replan(planId: string, values: Values): Promise<PlanView> {
    const p = this.plans.get(planId);
    if (!p || p.expires <= Date.now())
      throw new InstallError('no such plan (it was used, or it expired): make the plan again', 404);
    const view =
      'registry' in p.origin
        ? await this.planRegistry(p.origin.registry, values)
        : await this.planBundleFile(p.origin.bundleFile.fileName, p.origin.bundleFile.buffer, values);
    this.plans.delete(planId);
    return view;
  }

  private async planBundleBuffer(
    buffer: Buffer,
    values: Values,
    o: { source: PlanView['source']; checksum: string; server?: ServerJson; origin: PlanOrigin },
  ): Promise<PlanView> {
    const contents = await inspectBundle(buffer);
    const m: BundleManifest = checkManifest(contents.manifest);
    const name = o.server?.name ?? m.name;
    const existing = this.installedAs(name);
    const taken = new Set(this.servers().map((s) => s.id));
    const serverId = serverIdFor(m.name, (id) => taken.has(id), existing);
    const folder = join(this.ctx.dataDir, 'bundles', serverId);
    const folderRef = `${this.ctx.dataDirRef}/bundles/${serverId}`;
    const real = bundleCommand(m, folder, values);
    const inEntry = bundleCommand(m, folderRef, values, process.platform, asLiteral);
    let command = inEntry.command;
    const env = { ...inEntry.env };
    let shownCommand = real.command;
    if (command === 'node' && this.ctx.env.QIMING_NODE) {
      // The app's own executable runs Node scripts; plain `node` may not be installed.
      command = '${QIMING_NODE}';
      shownCommand = this.ctx.env.QIMING_NODE;
      env.ELECTRON_RUN_AS_NODE = '1';
    }
    const entry: EntryDraft = { kind: 'stdio', command, args: inEntry.args };
    if (Object.keys(env).length > 0) entry.env = env;
    const plan: EntryPlan = {
      entry,
      shown: commandLine(shownCommand, real.args),
      runtime: command === '${QIMING_NODE}' ? undefined : real.command,
      inputs: bundleInputs(m),
      missing: real.missing,
      secretKeys: real.secretEnv.map((key) => ({ where: 'env' as const, key })),
    };
    const checksum = o.checksum || 'none: a file you opened';
    const view = await this.keep(
      name,
      m.version,
      m.display_name,
      plan,
      o.source,
      checksum,
      {
        source: o.server ? 'registry' : 'bundle',
        name,
        version: o.server?.version ?? m.version,
        folder,
        sha256: contents.sha256,
        ...(o.source.kind === 'registry' ? { registry: o.source.registry } : {}),
      },
      values,
      o.origin,
      { buffer, folder, serverId },
    );
    view.sha256 = contents.sha256;
    view.folder = folder;
    view.author = m.author.name;
    view.tools = (m.tools ?? []).map((t) => t.name);
    view.prompts = (m.prompts ?? []).map((p) => p.name);
    return view;
  }

  private async keep(
    name: string,
    version: string,
    title: string | undefined,
    plan: EntryPlan,
    source: PlanView['source'],
    checksum: string,
    record: StoredPlan['record'],
    values: Values,
    origin: PlanOrigin,
    bundle?: { buffer: Buffer; folder: string; serverId: string },
  ): Promise<PlanView> {
    const servers = this.servers();
    const existing = this.installedAs(name);
    const taken = new Set(servers.map((s) => s.id));
    const serverId = bundle?.serverId ?? serverIdFor(name, (id) => taken.has(id), existing);
    const secretValues = plan.inputs
      .filter((i) => i.secret)
      .map((i) => values[i.key] ?? i.default ?? '')
      .filter((v) => v !== '');
    for (const s of plan.secretKeys) {
      const v = s.where === 'env' ? plan.entry.env?.[s.key] : plan.entry.headers?.[s.key];
      if (v) secretValues.push(fromLiteral(v));
    }
    const isSecret = (where: 'env' | 'headers', key: string) =>
      plan.secretKeys.some((s) => s.where === where && s.key === key);
    const view: PlanView = {
      planId: randomBytes(16).toString('hex'),
      serverId,
      name,
      version,
      kind: plan.entry.kind,
      shown: mask(plan.shown, secretValues),
      source,
      checksum,
      env: Object.entries(plan.entry.env ?? {}).map(([k, v]) => ({
        name: k,
        value: isSecret('env', k) ? MASK : mask(fromLiteral(v), secretValues),
        secret: isSecret('env', k),
      })),
      headers: Object.entries(plan.entry.headers ?? {}).map(([k, v]) => ({
        name: k,
        value: isSecret('headers', k) ? MASK : mask(fromLiteral(v), secretValues),
        secret: isSecret('headers', k),
      })),
      inputs: plan.inputs,
      missing: plan.missing,
      secretsKept: plan.secretKeys.length > 0 ? await secretsKeptWhere() : 'config',
      expiresAt: new Date(Date.now() + PLAN_TTL_MS).toISOString(),
    };
    if (title !== undefined) view.title = title;
    if (plan.runtime !== undefined) view.runtime = await this.findRuntime(plan.runtime);
    if (existing !== undefined) {
      const before = servers.find((s) => s.id === existing);
      const was = this.records()[existing];
      const changes: string[] = [];
      if (was && was.version !== version) changes.push(`version ${was.version} → ${version}`);
      const beforeLine =
        before?.kind === 'remote' ? (before.url ?? '') : commandLine(before?.command ?? '', before?.args ?? []);
      const afterLine =
        plan.entry.kind === 'remote'
          ? (plan.entry.url ?? '')
          : commandLine(plan.entry.command ?? '', plan.entry.args ?? []);
      if (before && mask(beforeLine, secretValues) !== mask(afterLine, secretValues))
        changes.push(
          `${plan.entry.kind === 'remote' ? 'URL' : 'command'}: ${mask(beforeLine, secretValues)} → ${mask(afterLine, secretValues)}`,
        );
      const names = (e: Record<string, string> | undefined) =>
        Object.keys(e ?? {})
          .sort()
          .join(', ');
      if (before && names(before.env) !== names(plan.entry.env))
        changes.push(`environment: ${names(before.env) || 'none'} → ${names(plan.entry.env) || 'none'}`);
      view.changes = changes.length > 0 ? changes : ['nothing: the same entry is written again'];
    }
    this.prune();
    this.plans.set(view.planId, {
      view,
      origin,
      entry: plan.entry,
      secretKeys: plan.secretKeys,
      record,
      replaces: existing !== undefined,
      expires: Date.now() + PLAN_TTL_MS,
      ...(bundle ? { bundle: { buffer: bundle.buffer, folder: bundle.folder } } : {}),
    });
    return view;
  }

  private prune(): void {
    const now = Date.now();
    for (const [id, p] of this.plans) if (p.expires <= now) this.plans.delete(id);
    while (this.plans.size >= MAX_PLANS) this.plans.delete(this.plans.keys().next().value!);
    // Bounded memory: each bundle plan holds its file; the newest ones are kept, within the bound.
    let held = MAX_BUNDLE_BYTES; // room for the plan being added
    for (const [id, p] of [...this.plans].reverse()) {
      const bytes = p.bundle?.buffer.length ?? 0;
      if (bytes === 0) continue;
      held += bytes;
      if (held > MAX_KEPT_BUNDLE_BYTES) this.plans.delete(id);
    }
  }

  private async findRuntime(command: string): Promise<PlanView['runtime']> {
    const lp = await loginPath();
    const path = findCommand(command, mergePath(this.ctx.env.PATH, lp.folders), undefined);
    return path ? { command, found: true, path } : { command, found: false };
  }

  /** Carries out plan `planId`: unpacks a bundle, writes the entry, records the install. */
  async confirm(planId: string): Promise<{ serverId: string; replaced: boolean }> {
    const p = this.plans.get(planId);
    this.plans.delete(planId);
    if (!p || p.expires <= Date.now())
      throw new InstallError('no such plan (it was used, or it expired): make the plan again', 404);
    if (p.view.missing.length > 0) throw new InstallError(`values are still needed: ${p.view.missing.join(', ')}`);
    const { serverId } = p.view;
    mkdirSync(this.ctx.dataDir, { recursive: true });
    let swapped: string | undefined;
    if (p.bundle) {
      const fresh = `${p.bundle.folder}.new-${randomBytes(4).toString('hex')}`;
      await unpackBundle(p.bundle.buffer, fresh);
      if (existsSync(p.bundle.folder)) {
        swapped = `${p.bundle.folder}.old-${randomBytes(4).toString('hex')}`;
        renameSync(p.bundle.folder, swapped);
      }
      renameSync(fresh, p.bundle.folder);
    }
    const entry: EntryDraft = { ...p.entry, ...(p.entry.env ? { env: { ...p.entry.env } } : {}) };
    if (p.entry.headers) entry.headers = { ...p.entry.headers };
    const kept: string[] = [];
    for (const s of p.secretKeys) {
      const map = s.where === 'env' ? entry.env : entry.headers;
      if (map?.[s.key] === undefined) continue;
      const stored = await storeSecretValue(serverId, s.where, s.key, map[s.key]);
      map[s.key] = stored.value;
      if (stored.name !== undefined) kept.push(stored.name);
    }
    const exists = this.servers().some((s) => s.id === serverId);
    const result = this.store().apply(
      exists ? { op: 'update', id: serverId, entry } : { op: 'add', id: serverId, entry },
    );
    if (!result.ok) {
      if (p.bundle) {
        rmSync(p.bundle.folder, { recursive: true, force: true });
        if (swapped) renameSync(swapped, p.bundle.folder);
      }
      throw new InstallError(`the entry cannot be written: ${result.error ?? (result.issues ?? []).join('; ')}`, 409);
    }
    if (swapped) rmSync(swapped, { recursive: true, force: true });
    const records = this.records();
    records[serverId] = {
      ...p.record,
      ...(kept.length ? { secrets: kept } : {}),
      installedAt: new Date().toISOString(),
    };
    writeRecords(this.ctx.dataDir, records);
    return { serverId, replaced: exists };
  }

  /** Removes an installed server: its entry, its bundle folder, the secrets its install kept, and its record. */
  async uninstall(serverId: string): Promise<{ removedFolder?: string }> {
    const records = this.records();
    const rec = records[serverId];
    if (!rec) throw new InstallError(`"${serverId}" was not installed from the registry or a bundle`, 404);
    if (this.servers().some((s) => s.id === serverId)) {
      const r = this.store().apply({ op: 'remove', id: serverId });
      if (!r.ok) throw new InstallError(`the entry cannot be removed: ${r.error ?? ''}`, 409);
    }
    const bundlesDir = join(this.ctx.dataDir, 'bundles');
    if (rec.folder && rec.folder.startsWith(bundlesDir)) rmSync(rec.folder, { recursive: true, force: true });
    if (rec.secrets?.length) await forgetSecrets(rec.secrets);
    delete records[serverId];
    writeRecords(this.ctx.dataDir, records);
    return rec.folder ? { removedFolder: rec.folder } : {};
  }
}
