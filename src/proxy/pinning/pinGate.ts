/**
 * One server's tool pinning: what of its listed tools reaches sessions. Each tool's definition
 * (canonicalTool.ts) is compared with its pin (pinStore.ts): the same hash passes; a tool never
 * seen is pinned and passes; any other is a drift — `changed` (its pin differs), `renamed` (the
 * definition of a pinned tool no longer listed, under a new name), `unverified` (the pin file is
 * unreadable). Under `block` a drift is withheld until the user accepts it; under `warn` it is
 * logged and passes. A rejected definition stays withheld; an accepted one becomes the pin.
 * The pins are the server's launch's (launchIdentity.ts): a server seen for the first time
 * under its launch may take over the pins kept under its id (namedPins.ts).
 */
import type { Logger } from '../common/logger.js';
import type { ServerEntry } from '../config/configTypes.js';
import type { PinningMode, PinningStatus, ToolDrift } from '../../shared/status.js';
import { bodyHash, canonicalJson, changedFields, definitionOf, sha256, type ToolDefinition } from './canonicalTool.js';
import { launchIdentity } from './launchIdentity.js';
import { namedPins } from './namedPins.js';
import {
  byName,
  MAX_PINNED_TOOLS,
  pinFile,
  readPins,
  updatePins,
  type Pin,
  type PinDocument,
  type PinFile,
  type PinRead,
} from './pinStore.js';

type Item = Record<string, unknown>;

/** At most this many drifts are shown in a server's status. */
const MAX_SHOWN_DRIFTS = 64;
/** Each definition's text in a drift is cut past this many characters. */
const MAX_SHOWN_TEXT = 16 * 1024;

export interface PinDecisionResult {
  ok: boolean;
  error?: string;
  status?: number;
}

interface Drift {
  shown: ToolDrift;
  definition: ToolDefinition;
}

export class PinGate {
  private drifts = new Map<string, Drift>();
  private error?: string;
  private readonly logged = new Set<string>();
  readonly serverId: string;
  private readonly file: PinFile;

  constructor(
    readonly entry: ServerEntry,
    dir: string,
    private readonly mode: () => PinningMode,
    private readonly log: Logger,
  ) {
    this.serverId = entry.id;
    this.file = pinFile(dir, entry.id, launchIdentity(entry));
  }

  /** The tools of `listed` that sessions may see; pins what is new. */
  apply(listed: Item[]): Item[] {
    const mode = this.mode();
    if (mode === 'off') {
      this.drifts.clear();
      this.error = undefined;
      return listed;
    }
    let read: PinRead = readPins(this.file.path, this.serverId);
    // The first sight of this launch: pins kept under the server's id may be its own.
    const taken = read.ok && read.absent ? this.namedPinsOf(listed) : undefined;
    if (taken) read = { ok: true, doc: taken };
    const doc = read.ok ? read.doc : undefined;
    this.error = read.ok ? undefined : read.error;
    if (!read.ok)
      this.once(`error\0${read.error}`, () =>
        this.log.error(`pins: ${read.error}; its tools are unverified until accepted`),
      );
    const names = new Set(listed.map((t) => String(t.name)));
    const orphans = doc ? orphanBodies(doc, names) : new Map<string, string>();
    const fresh = byName<Pin>();
    let pinCount = doc ? Object.keys(doc.tools).length : 0;
    const out: Item[] = [];
    const drifts = new Map<string, Drift>();
    for (const tool of listed) {
      const name = String(tool.name);
      const definition = definitionOf(tool);
      let hash: string;
      try {
        hash = sha256(canonicalJson(definition));
      } catch (err) {
        this.once(`deep\0${name}`, () =>
          this.log.warn(`pins: tool "${name}" cannot be pinned: it ${(err as Error).message}`),
        );
        if (mode === 'warn') out.push(tool);
        continue;
      }
      const pin = doc?.tools[name];
      let drift: ToolDrift | undefined;
      if (!doc) drift = this.driftOf(name, 'unverified', definition, hash, undefined);
      else if (pin) {
        if (pin.hash !== hash) drift = this.driftOf(name, 'changed', definition, hash, pin.definition);
      } else {
        const from = orphans.get(bodyHash(definition));
        if (from !== undefined)
          drift = this.driftOf(name, 'renamed', definition, hash, doc.tools[from].definition, from);
        else if (doc.recovering) drift = this.driftOf(name, 'unverified', definition, hash, undefined);
        else if (pinCount >= MAX_PINNED_TOOLS) {
          this.once(`cap\0${name}`, () =>
            this.log.warn(`pins: tool "${name}" not pinned: more than ${MAX_PINNED_TOOLS} tools`),
          );
          if (mode === 'warn') out.push(tool);
          continue;
        } else {
          fresh[name] = { hash, definition, pinnedAt: new Date().toISOString() };
          pinCount++;
        }
      }
      if (!drift) {
        out.push(tool);
        continue;
      }
      drift.rejected = doc?.rejected[name] === hash || undefined;
      drift.withheld = mode === 'block' || drift.rejected === true;
      drifts.set(name, { shown: drift, definition });
      if (!drift.withheld) out.push(tool);
      this.once(`drift\0${name}\0${hash}`, () =>
        this.log.warn(
          `pins: ${describeDrift(drift)}; ${drift.withheld ? 'withheld until accepted' : 'passed (pinning: warn)'}`,
        ),
      );
    }
    this.drifts = drifts;
    const settled = doc?.recovering === true && drifts.size === 0;
    if (Object.keys(fresh).length > 0 || settled || taken)
      this.save((d) => {
        if (taken) {
          for (const [n, p] of Object.entries(taken.tools)) d.tools[n] ??= p;
          for (const [n, h] of Object.entries(taken.rejected)) d.rejected[n] ??= h;
          if (taken.recovering && !settled) d.recovering = true;
        }
        for (const [n, p] of Object.entries(fresh)) d.tools[n] ??= p;
        if (settled) delete d.recovering;
      });
    return out;
  }

  /** The pins kept under this server's id when they are evidently its own (namedPins.ts); the choice logged once. */
  private namedPinsOf(listed: Item[]): PinDocument | undefined {
    const named = namedPins(this.file.dir, this.serverId, listed);
    if (named.kind === 'none') return undefined;
    if (named.kind === 'unreadable') {
      this.once(`named\0${named.error}`, () =>
        this.log.warn(`pins: ${named.error}; not taken over: the tools of this launch are a first sight`),
      );
      return undefined;
    }
    const counts = `${named.agree} of the tools both name agree, ${named.disagree} differ`;
    this.once(`named\0${named.kind}`, () =>
      named.kind === 'taken'
        ? this.log.info(`pins: taking over ${named.path} (${counts}) as the pins of this launch`)
        : this.log.info(
            `pins: ${named.path} was taken from another server (${counts}): the tools of this launch are a first sight`,
          ),
    );
    return named.kind === 'taken' ? named.doc : undefined;
  }

  /** The drift that withholds tool `name`, if it is withheld. */
  withheld(name: string): ToolDrift | undefined {
    const d = this.drifts.get(name)?.shown;
    return d?.withheld ? d : undefined;
  }

  withheldNames(): string[] {
    return [...this.drifts.values()].filter((d) => d.shown.withheld).map((d) => d.shown.tool);
  }

  status(): PinningStatus {
    return {
      mode: this.mode(),
      drifts: [...this.drifts.values()].slice(0, MAX_SHOWN_DRIFTS).map((d) => d.shown),
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /** Accepts (pins) or rejects the drifted definition of `tool` whose hash is `hash`. The caller lists again. */
  decide(tool: string, decision: 'accept' | 'reject', hash: string): PinDecisionResult {
    const d = this.drifts.get(tool);
    if (!d)
      return {
        ok: false,
        status: 404,
        error: `tool "${tool}" of server "${this.serverId}" has no change to ${decision}`,
      };
    if (d.shown.hash !== hash)
      return {
        ok: false,
        status: 409,
        error: `tool "${tool}" changed again since it was shown: look at the new change`,
      };
    const unverified = d.shown.kind === 'unverified';
    const failed = this.save(
      (doc) => {
        if (decision === 'accept') {
          doc.tools[tool] = { hash, definition: d.definition, pinnedAt: new Date().toISOString() };
          delete doc.rejected[tool];
        } else doc.rejected[tool] = hash;
      },
      unverified && decision === 'accept',
    );
    if (failed) return { ok: false, status: 500, error: failed };
    this.log.info(`pins: ${decision === 'accept' ? 'accepted' : 'rejected'} the change of tool "${tool}"`);
    return { ok: true };
  }

  private save(change: (doc: PinDocument) => void, replaceUnreadable = false): string | undefined {
    const failed = updatePins(this.file, change, replaceUnreadable);
    if (failed) {
      this.error = failed;
      this.once(`save\0${failed}`, () => this.log.error(`pins: ${failed}`));
    }
    return failed;
  }

  private once(key: string, fn: () => void): void {
    if (this.logged.has(key)) return;
    if (this.logged.size > 1000) this.logged.clear();
    this.logged.add(key);
    fn();
  }

  private driftOf(
    tool: string,
    kind: ToolDrift['kind'],
    definition: ToolDefinition,
    hash: string,
    old: ToolDefinition | undefined,
    from?: string,
  ): ToolDrift {
    const fields = old ? changedFields(old, definition).filter((f) => kind !== 'renamed' || f !== 'name') : [];
    return {
      tool,
      kind,
      ...(from !== undefined ? { from } : {}),
      fields,
      hash,
      withheld: true,
      ...(old && typeof old.description === 'string' ? { oldDescription: cut(old.description) } : {}),
      ...(typeof definition.description === 'string' ? { newDescription: cut(definition.description) } : {}),
      ...(old ? { oldDefinition: restText(old) } : {}),
      newDefinition: restText(definition),
    };
  }
}

/** Pinned tools not listed now, by the hash of their definition without the name. */
function orphanBodies(doc: PinDocument, listed: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, pin] of Object.entries(doc.tools)) if (!listed.has(name)) out.set(bodyHash(pin.definition), name);
  return out;
}

/** A definition without its name and description, as indented JSON with sorted keys. */
function restText(def: ToolDefinition): string {
  const { name: _n, description: _d, ...rest } = def;
  return cut(JSON.stringify(JSON.parse(canonicalJson(rest)), null, 2));
}

function cut(text: string): string {
  return text.length > MAX_SHOWN_TEXT
    ? `${text.slice(0, MAX_SHOWN_TEXT)}\n… (cut at ${MAX_SHOWN_TEXT} characters)`
    : text;
}

/** One line naming a drift: what the error of a call to the tool and the log say. */
export function describeDrift(d: ToolDrift): string {
  if (d.kind === 'renamed') return `tool "${d.tool}" is the pinned tool "${d.from}" renamed (definition changed: name)`;
  if (d.kind === 'unverified')
    return `tool "${d.tool}" cannot be checked against its pin (definition changed or unknown: the pin file is unreadable)`;
  return `tool "${d.tool}" changed since it was pinned (${d.fields.join(', ') || 'definition'} changed)`;
}
