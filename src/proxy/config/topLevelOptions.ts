/**
 * The config's top-level options, one row each: how its value is checked (its zod schema),
 * its default, where the normalised config carries it, how a reload of the running bridge
 * takes a change of it, and what the app does with it. The rest is built from this table:
 * the top level's schema and the option fields of `ProxyConfig` (config.ts; configTypes.ts writes
 * them out, checked against the rows by {@link ProxyConfigHasTheRows}), the
 * options a reload applies live (configDiff.ts), the options the app sends to its bridge and
 * hands to its agents' proxies (src/main/config/userConfig.ts). docs/cli.md's "Top level"
 * documents every row in this order (tests/proxy/config/topLevelOptions.test.ts).
 *
 * A row without a schema is checked by code of its own, named above the table; a check that
 * reads past the schema (an empty tool pattern, the tracing URL) stays in config.ts.
 */
import * as z from 'zod/mini';
import {
  capabilityFlags,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_READY_TIMEOUT_MS,
  DEFAULT_TOOL_BUDGET_TOKENS,
  ms,
  msMap,
  must,
  oneOf,
  PINNING,
  resultBytes,
} from './configEntry.js';
import { APPROVAL_HINTS, DEFAULT_APPROVAL_TIMEOUT_MS } from './approvalConfig.js';
import type { ProxyConfig } from './configTypes.js';

/**
 * Where `parseConfig` puts an option: `config` always (the default when unset), `set` only
 * when set to other than the default, `entries` merged into every server entry, `approval`
 * into `ProxyConfig.approval` (config/approvalConfig.ts).
 */
type Carried = 'config' | 'set' | 'entries' | 'approval';

/**
 * How a reload of the running bridge takes a change (bridge/reload.ts): `live` the hub takes
 * it, no server restarts (configDiff.ts `options`, `Hub.setOptions`); `servers` every server
 * whose entry it is merged into restarts; `start` read at start only, a reload leaves it.
 */
type Reload = 'live' | 'servers' | 'start';

/**
 * What the app does with it (src/main/config/userConfig.ts): `bridge` a change in its file is
 * sent to its running bridge (`bridgeSignature`); `agents` it is handed to each agent's own
 * stdio aggregation of the bridge's servers (`exposure`).
 */
type App = 'bridge' | 'agents';

/** One option: the columns of {@link TOP_LEVEL_OPTIONS}. */
interface OptionRow<S extends z.ZodMiniType | undefined, C extends Carried, R extends Reload> {
  /** Its check; undefined: checked by its own code. */
  schema: S;
  /** Its value when unset (for `entries` and `approval` rows, what their own code does then). */
  default: (S extends z.ZodMiniType ? z.output<S> : never) | undefined;
  carried: C;
  reload: R;
  app: readonly App[];
}
type AnyRow = OptionRow<z.ZodMiniType | undefined, Carried, Reload>;

/** A row; its default is checked against its schema, its `carried` and `reload` kept as written. */
function option<S extends z.ZodMiniType | undefined, C extends Carried, R extends Reload>(
  schema: S,
  dflt: OptionRow<S, C, R>['default'],
  carried: C,
  reload: R,
  ...app: App[]
): OptionRow<S, C, R> {
  return { schema, default: dflt, carried, reload, app };
}

const choice = <T extends readonly string[]>(values: T) => z.enum(values, { error: oneOf(values) });
const NAMING = ['prefixed', 'original'] as const;
const TOOL_EXPOSURE = ['auto', 'all', 'search'] as const;
const ACTIVITY = ['off', 'memory', 'file'] as const;
const TOKENS = 'a positive integer (tokens)';
/** Far above any model's context: a larger budget is a typo, not a choice. */
const MAX_TOOL_BUDGET_TOKENS = 100_000_000;
const tokens = () =>
  z
    .int({ error: must(TOKENS) })
    .check(
      z.minimum(1, { error: `must be ${TOKENS}` }),
      z.maximum(MAX_TOOL_BUDGET_TOKENS, { error: `must be at most ${MAX_TOOL_BUDGET_TOKENS}` }),
    );
export const HTTP_URL = 'an http(s) URL';
/** `{"endpoint": "<url>"}`; that the URL is http(s) is config.ts's check. */
const tracing = () =>
  z.strictObject(
    { endpoint: z.optional(z.string({ error: must(HTTP_URL) })) },
    { error: must('{"endpoint": "<url>"}') },
  );

/**
 * Every top-level option, in the order docs/cli.md lists them (and the schema reports problems):
 * `option(schema, default, carried, reload, ...app)`. `approval` and `sandbox` have no schema:
 * approvalConfig.ts `approvalRule` and sandbox/sandboxConfig.ts `applySandbox` check them.
 * `activity`'s `memory` is no setting: unset, the bridge keeps its log in memory and a stdio
 * proxy keeps none (hub.ts `activityDefault`).
 */
export const TOP_LEVEL_OPTIONS = {
  toolNaming: option(choice(NAMING), 'prefixed', 'config', 'live', 'bridge'),
  readyTimeoutMs: option(ms(1), DEFAULT_READY_TIMEOUT_MS, 'config', 'live', 'bridge'),
  toolTimeouts: option(msMap(), {}, 'config', 'live', 'bridge'),
  clientCapabilities: option(capabilityFlags(), {}, 'entries', 'servers', 'bridge'),
  apps: option(z.boolean({ error: must('true or false') }), true, 'entries', 'servers', 'bridge'),
  toolExposure: option(choice(TOOL_EXPOSURE), 'auto', 'config', 'live', 'bridge', 'agents'),
  toolBudgetTokens: option(tokens(), DEFAULT_TOOL_BUDGET_TOKENS, 'config', 'live', 'bridge', 'agents'),
  maxResultBytes: option(resultBytes(), DEFAULT_MAX_RESULT_BYTES, 'set', 'live', 'bridge', 'agents'),
  pinning: option(choice(PINNING), 'block', 'set', 'live', 'bridge'),
  activity: option(choice(ACTIVITY), 'memory', 'set', 'start'),
  approval: option(undefined, undefined, 'approval', 'live', 'bridge'),
  approvalHints: option(choice(APPROVAL_HINTS), 'destructive', 'approval', 'live', 'bridge'),
  approvalTimeoutMs: option(ms(1), DEFAULT_APPROVAL_TIMEOUT_MS, 'approval', 'live', 'bridge'),
  sandbox: option(undefined, undefined, 'entries', 'servers', 'bridge'),
  tracing: option(tracing(), undefined, 'set', 'start'),
};

type Rows = typeof TOP_LEVEL_OPTIONS;
export type TopLevelOption = keyof Rows;
type ValueOf<K extends TopLevelOption> = z.output<NonNullable<Rows[K]['schema']>>;

/** The top level as its schema gives it: each option with a schema, undefined when not written. */
export type TopLevelValues = {
  [K in TopLevelOption as Rows[K]['schema'] extends undefined ? never : K]?: ValueOf<K>;
};

type FieldsOf<C extends Carried> = {
  [K in TopLevelOption as Rows[K]['carried'] extends C ? K : never]: ValueOf<K>;
};
/** The option fields of `ProxyConfig`: the `config` rows always there, the `set` rows when set. */
export type TopLevelFields = FieldsOf<'config'> & Partial<FieldsOf<'set'>>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/**
 * `ProxyConfig` (configTypes.ts, a leaf the schemas' files import) writes its option fields
 * out, each with its comment; they are the `config` and `set` rows exactly, names, types and
 * presence: this type does not compile otherwise.
 */
export type ProxyConfigHasTheRows = [
  Holds<
    Same<
      keyof TopLevelFields,
      Exclude<keyof ProxyConfig, 'servers' | 'exposeAlways' | 'serverDescriptions' | 'approval' | 'invalid'>
    >
  >,
  Holds<Same<TopLevelFields, Pick<ProxyConfig, keyof TopLevelFields>>>,
];

const ROWS = Object.entries(TOP_LEVEL_OPTIONS) as [TopLevelOption, AnyRow][];
const names = (pick: (row: AnyRow) => boolean) => ROWS.filter(([, row]) => pick(row)).map(([name]) => name);

/** The schema of the top level, every option optional; unknown keys kept (other clients' settings). */
export const topLevelSchema = z.looseObject(
  Object.fromEntries(ROWS.filter(([, row]) => row.schema).map(([name, row]) => [name, z.optional(row.schema!)])),
  { error: must('a JSON object') },
);

/** The `carried` rows' fields of a config whose checked top level is `values`, in the table's order. */
export function carriedOptions(values: TopLevelValues, carried: 'config'): FieldsOf<'config'>;
export function carriedOptions(values: TopLevelValues, carried: 'set'): Partial<FieldsOf<'set'>>;
export function carriedOptions(values: TopLevelValues, carried: 'config' | 'set'): Partial<TopLevelFields> {
  const out: Record<string, unknown> = {};
  for (const [name, row] of ROWS) {
    if (row.carried !== carried) continue;
    const value = values[name as keyof TopLevelValues];
    // The default spelt out is no setting: a reload that writes it changes nothing (configDiff.ts).
    if (carried === 'set') {
      if (value !== undefined && value !== row.default) out[name] = value;
    } else {
      const v = value ?? row.default;
      // A copy: no two configs share an object, the default's least of all.
      out[name] = typeof v === 'object' && v !== null ? { ...v } : v;
    }
  }
  return out as Partial<TopLevelFields>;
}

/** The option fields of `ProxyConfig` a reload hands to the running hub (configDiff.ts). */
export const LIVE_OPTIONS = names((r) => r.reload === 'live' && (r.carried === 'config' || r.carried === 'set')) as {
  [K in keyof TopLevelFields]-?: Rows[K]['reload'] extends 'live' ? K : never;
}[keyof TopLevelFields][];

/** The options whose change in the app's file it sends to its running bridge. */
export const BRIDGE_OPTIONS = names((r) => r.app.includes('bridge'));

/** The options the app hands to its agents' own stdio aggregation of the bridge's servers. */
export const AGENT_OPTIONS = names((r) => r.app.includes('agents'));
