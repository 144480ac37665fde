/**
 * Install with consent: a plan first, then a confirm with the plan's id. A plan holds the
 * exact entry that will be written and shows what it will run: the command line or URL as it
 * runs, every variable and header with its value, where it comes from, the checksum, the
 * runtime it needs and whether this machine has it, and for a re-install what changes. Only
 * what the user types into a secret field is masked (planText.ts); what a document or a
 * bundle fixes is shown, whatever it says of itself. A registry's mcpb package is a plan of
 * its own first: the URL and sha256 it will fetch, fetched only at its confirm, which answers
 * the bundle's plan. Nothing is fetched (but the registry document), unpacked, written or
 * started before a confirm; a plan is used once and expires after PLAN_TTL_MS. Used by the
 * bridge's /install routes.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { EntryDraft, EntryView } from '../../shared/configContract.js';
import type { InstallPlanView } from '../../shared/install.js';
import type { SandboxSetting } from '../../shared/sandbox.js';
import { sandboxChange } from './sandboxChange.js';
import { commandLine } from '../../shared/shellWords.js';
import { ConfigStore } from '../config/configStore.js';
import { SERVER_ID_RE } from '../config/configEntry.js';
import { secretRef } from '../secrets/secretStore.js';
import { findCommand, mergePath } from '../process/commandResolver.js';
import { loginPath } from '../process/loginPath.js';
import { boundedGet } from './boundedFetch.js';
import { inspectBundle, MAX_BUNDLE_BYTES, unpackBundle } from './bundleArchive.js';
import { bundleCommand, bundleInputs, checkManifest, type BundleManifest } from './bundleManifest.js';
import { InstallError } from './installError.js';
import { readRecords, writeRecords, type InstallRecord } from './installRecords.js';
import { fromLiteral } from './literal.js';
import {
  holdsSecrets,
  secretsInArgs,
  shownLine,
  shownValues,
  writtenEntry,
  type PlannedEntry,
  type SecretWriter,
} from './plannedEntry.js';
import { fixed, reference } from './planText.js';
import { proposedSandbox } from './proposedSandbox.js';
import type { RegistryClient, RegistryEntry } from './registryClient.js';
import type { ServerJson } from './serverJson.js';
import { packageEntry, remoteEntry, type EntryPlan, type Values } from './serverJsonEntry.js';
import { argSecretName, forgetSecrets, secretsKeptWhere, storeSecrets, valueSecretName } from './secretValue.js';

export const PLAN_TTL_MS = 10 * 60_000;
const MAX_PLANS = 16;
/** The bundle bytes all kept plans may hold together: the oldest bundle plans go first past it. */
const MAX_KEPT_BUNDLE_BYTES = 2 * MAX_BUNDLE_BYTES;
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

/** How a bundle's plan was come to: its file, or a registry's mcpb package (then its server.json). */
interface BundleOrigin {
  source: PlanView['source'];
  checksum: string;
  server?: ServerJson;
}

/** What a plan was made from, so it can be made again with other values (`replan`). */
type PlanOrigin = { registry: RegistrySource } | { bundle: { buffer: Buffer; o: BundleOrigin } };

/** A registry's mcpb package before its download: what the confirm fetches and checks. */
interface Download {
  url: string;
  sha256: string;
  values: Values;
  o: BundleOrigin;
}

interface StoredPlan {
  view: PlanView;
  origin: PlanOrigin;
  entry: PlannedEntry;
  record: Omit<InstallRecord, 'installedAt'>;
  bundle?: { buffer: Buffer; folder: string };
  download?: Download;
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

/** What a confirm did: installed the server, or (a download plan) fetched the bundle and made its plan. */
export type Confirmed = { serverId: string; replaced: boolean } | { plan: PlanView };

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

/** The URL an mcpb package names, if it is one this installer fetches. */
function downloadUrl(server: ServerJson, identifier: string): string {
  let url: URL;
  try {
    url = new URL(identifier);
  } catch {
    throw new InstallError(`${server.name}: its mcpb package's identifier ${JSON.stringify(identifier)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new InstallError(`${server.name}: its mcpb package is at a ${url.protocol} URL; only http(s) is fetched`);
  return url.href;
}

/**
 * How the secrets of a plan are written: each as a `${secret:NAME}` reference under the name the
 * store gives it, the values gathered in `kept` (for the store) when given. Two values under
 * one name refuse the plan.
 */
function storeWriter(serverId: string, kept?: Map<string, string>): SecretWriter {
  const named = new Map<string, string>();
  const keep = (name: string, value: string, what: string) => {
    const was = named.get(name);
    if (was !== undefined && was !== what)
      throw new InstallError(`${what} and ${was} would be kept under one secret name (${name}): refused`);
    named.set(name, what);
    kept?.set(name, value);
    return secretRef(name);
  };
  return {
    value: (field, key, text) =>
      keep(valueSecretName(serverId, field, key), text, `${field === 'env' ? 'the variable' : 'the header'} ${key}`),
    arg: (p) => keep(argSecretName(serverId, p.secret ?? ''), p.text, `the value of ${p.secret ?? ''}`),
  };
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
      const url = downloadUrl(server, pkg.identifier);
      return this.planDownload(
        server,
        {
          url,
          sha256: pkg.fileSha256.toLowerCase(),
          values,
          o: {
            source,
            checksum: 'sha256 verified against server.json',
            server,
          },
        },
        { registry: src },
      );
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
      { registry: src },
    );
  }

  /** A plan for a bundle file the user opened. */
  async planBundleFile(fileName: string, buffer: Buffer, values: Values): Promise<PlanView> {
    return this.planBundleBuffer(buffer, values, { source: { kind: 'bundle', file: fileName }, checksum: '' });
  }

  /** Plan `planId` made again from what it was made of, with `values`; the old plan is dropped. */
  async replan(planId: string, values: Values): Promise<PlanView> {
    const p = this.plans.get(planId);
    if (!p || p.expires <= Date.now())
      throw new InstallError('no such plan (it was used, or it expired): make the plan again', 404);
    const view =
      'registry' in p.origin
        ? await this.planRegistry(p.origin.registry, values)
        : await this.planBundleBuffer(p.origin.bundle.buffer, values, p.origin.bundle.o);
    this.plans.delete(planId);
    return view;
  }

  /** The plan of a registry's mcpb package before anything is fetched: the URL and the sha256 its confirm checks. */
  private planDownload(server: ServerJson, download: Download, origin: PlanOrigin): PlanView {
    const existing = this.installedAs(server.name);
    const taken = new Set(this.servers().map((s) => s.id));
    const view: PlanView = {
      planId: randomBytes(16).toString('hex'),
      serverId: serverIdFor(server.name, (id) => taken.has(id), existing),
      name: server.name,
      version: server.version,
      kind: 'stdio',
      shown: download.url,
      source: download.o.source,
      checksum: `sha256 ${download.sha256}, checked when it is downloaded`,
      download: { url: download.url, sha256: download.sha256 },
      env: [],
      headers: [],
      inputs: [],
      missing: [],
      secretsOnCommandLine: [],
      secretsKept: 'config',
      expiresAt: new Date(Date.now() + PLAN_TTL_MS).toISOString(),
    };
    if (server.title !== undefined) view.title = server.title;
    this.prune();
    this.plans.set(view.planId, {
      view,
      origin,
      entry: { kind: 'stdio' },
      record: { source: 'registry', name: server.name, version: server.version },
      download,
      replaces: existing !== undefined,
      expires: Date.now() + PLAN_TTL_MS,
    });
    return view;
  }

  /** Fetches a download plan's bundle, checks its sha256, and plans it. */
  private async fetchBundle(d: Download): Promise<PlanView> {
    const buffer = await boundedGet(d.url, `the bundle ${d.url}`, {
      timeoutMs: BUNDLE_DOWNLOAD_TIMEOUT_MS,
      maxBytes: MAX_BUNDLE_BYTES,
      redirects: 'https',
    });
    const sha = createHash('sha256').update(buffer).digest('hex');
    const name = d.o.server?.name ?? d.url;
    if (sha !== d.sha256)
      throw new InstallError(
        `${name}: the downloaded bundle's sha256 is ${sha}, not the ${d.sha256} its server.json gives: refused`,
      );
    return this.planBundleBuffer(buffer, d.values, d.o);
  }

  private async planBundleBuffer(buffer: Buffer, values: Values, o: BundleOrigin): Promise<PlanView> {
    const contents = await inspectBundle(buffer);
    const m: BundleManifest = checkManifest(contents.manifest);
    const name = o.server?.name ?? m.name;
    const existing = this.installedAs(name);
    const taken = new Set(this.servers().map((s) => s.id));
    const serverId = serverIdFor(m.name, (id) => taken.has(id), existing);
    const folder = join(this.ctx.dataDir, 'bundles', serverId);
    const cmd = bundleCommand(m, reference(folder, `${this.ctx.dataDirRef}/bundles/${serverId}`), values);
    let command = cmd.command;
    const env = { ...cmd.env };
    const qimingNode = this.ctx.env.QIMING_NODE;
    const viaAppNode = command.length === 1 && command[0].text === 'node' && qimingNode !== undefined;
    if (viaAppNode) {
      // The app's own executable runs Node scripts; plain `node` may not be installed.
      command = reference(qimingNode, '${QIMING_NODE}');
      env.ELECTRON_RUN_AS_NODE = fixed('1');
    }
    const entry: PlannedEntry = { kind: 'stdio', command, args: cmd.args };
    if (Object.keys(env).length > 0) entry.env = env;
    const plan: EntryPlan = {
      entry,
      ...(viaAppNode ? {} : { runtime: command.map((p) => p.text).join('') }),
      inputs: bundleInputs(m),
      missing: cmd.missing,
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
      { bundle: { buffer, o } },
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
    origin: PlanOrigin,
    bundle?: { buffer: Buffer; folder: string; serverId: string },
  ): Promise<PlanView> {
    const servers = this.servers();
    const existing = this.installedAs(name);
    const taken = new Set(servers.map((s) => s.id));
    const serverId = bundle?.serverId ?? serverIdFor(name, (id) => taken.has(id), existing);
    const labels = new Map(plan.inputs.map((i) => [i.key, i.label]));
    const view: PlanView = {
      planId: randomBytes(16).toString('hex'),
      serverId,
      name,
      version,
      kind: plan.entry.kind,
      shown: shownLine(plan.entry),
      source,
      checksum,
      env: shownValues(plan.entry.env),
      headers: shownValues(plan.entry.headers),
      inputs: plan.inputs,
      missing: plan.missing,
      secretsOnCommandLine: secretsInArgs(plan.entry).map((key) => labels.get(key) ?? key),
      secretsKept: holdsSecrets(plan.entry) ? await secretsKeptWhere() : 'config',
      expiresAt: new Date(Date.now() + PLAN_TTL_MS).toISOString(),
    };
    if (title !== undefined) view.title = title;
    // Windows has no sandbox (decision 0048): none is proposed there.
    if (plan.entry.kind === 'stdio' && process.platform !== 'win32')
      view.sandbox = proposedSandbox(plan.entry, this.ctx.dataDir);
    if (plan.runtime !== undefined) view.runtime = await this.findRuntime(plan.runtime);
    if (existing !== undefined) view.changes = this.changes(existing, version, plan.entry, view);
    this.prune();
    this.plans.set(view.planId, {
      view,
      origin,
      entry: plan.entry,
      record,
      replaces: existing !== undefined,
      expires: Date.now() + PLAN_TTL_MS,
      ...(bundle ? { bundle: { buffer: bundle.buffer, folder: bundle.folder } } : {}),
    });
    return view;
  }

  /**
   * What a re-install of `existing` changes: its version, its command or URL (as the config file
   * holds them), its variables' names, its sandbox against the one proposed (sandboxChange.ts).
   */
  private changes(existing: string, version: string, entry: PlannedEntry, view: PlanView): string[] {
    const before = this.servers().find((s) => s.id === existing);
    const was = this.records()[existing];
    const changes: string[] = [];
    if (was && was.version !== version) changes.push(`version ${was.version} → ${version}`);
    // As the config file will hold it, the secrets as the references the store would give them.
    const after = writtenEntry(entry, storeWriter(view.serverId));
    const line = (e: EntryDraft | EntryView | undefined) =>
      e?.kind === 'remote'
        ? fromLiteral(e.url ?? '')
        : commandLine(fromLiteral(e?.command ?? ''), (e?.args ?? []).map(fromLiteral));
    if (before && line(before) !== line(after))
      changes.push(`${entry.kind === 'remote' ? 'URL' : 'command'}: ${line(before)} → ${line(after)}`);
    const names = (e: Record<string, string> | undefined) =>
      Object.keys(e ?? {})
        .sort()
        .join(', ');
    if (before && names(before.env) !== names(after.env))
      changes.push(`environment: ${names(before.env) || 'none'} → ${names(after.env) || 'none'}`);
    const box = before && view.sandbox && sandboxChange(before.sandbox, view.sandbox);
    if (box) changes.push(box);
    return changes.length > 0 ? changes : ['nothing: the same entry is written again'];
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

  /**
   * Carries out plan `planId`: a download plan fetches its bundle and answers the bundle's plan;
   * any other unpacks a bundle, keeps the secrets, writes the entry and records the install.
   * `sandbox`: the stdio entry's own `"sandbox"` as the user left it in the consent (`null` or
   * absent: none written, the config's default applies); the config's check refuses a bad one.
   */
  async confirm(planId: string, sandbox?: SandboxSetting | null): Promise<Confirmed> {
    const p = this.plans.get(planId);
    this.plans.delete(planId);
    if (!p || p.expires <= Date.now())
      throw new InstallError('no such plan (it was used, or it expired): make the plan again', 404);
    if (p.download) return { plan: await this.fetchBundle(p.download) };
    if (p.view.missing.length > 0) throw new InstallError(`values are still needed: ${p.view.missing.join(', ')}`);
    const { serverId } = p.view;
    const kept = new Map<string, string>();
    const inStore = holdsSecrets(p.entry) && (await secretsKeptWhere()) === 'store';
    const entry = writtenEntry(p.entry, inStore ? storeWriter(serverId, kept) : undefined);
    if (entry.kind === 'stdio' && sandbox !== undefined) entry.sandbox = sandbox;
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
    const undoBundle = () => {
      if (!p.bundle) return;
      rmSync(p.bundle.folder, { recursive: true, force: true });
      if (swapped) renameSync(swapped, p.bundle.folder);
    };
    if (kept.size > 0) {
      try {
        await storeSecrets(kept);
      } catch (err) {
        undoBundle();
        throw new InstallError(`the secrets cannot be kept in the store: ${(err as Error).message}`, 409);
      }
    }
    const exists = this.servers().some((s) => s.id === serverId);
    const result = this.store().apply(
      exists ? { op: 'update', id: serverId, entry } : { op: 'add', id: serverId, entry },
    );
    if (!result.ok) {
      undoBundle();
      const why = [result.error ?? 'refused', ...(result.issues ?? [])].join('; ');
      throw new InstallError(`the entry cannot be written: ${why}`, 409);
    }
    if (swapped) rmSync(swapped, { recursive: true, force: true });
    const records = this.records();
    records[serverId] = {
      ...p.record,
      ...(kept.size ? { secrets: [...kept.keys()] } : {}),
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
