/**
 * A server.json package or remote turned into the entry an install writes (plannedEntry.ts):
 * the command line it runs (or the URL it reaches) and the values it asks the user for. Only
 * what the user types into a secret field is a secret (planText.ts); what the document fixes
 * is shown as it is, whatever it says of itself.
 *
 *   npm  -> npx -y <identifier>@<version>      (runtimeHint replaces npx)
 *   pypi -> uvx <identifier>==<version>
 *   oci  -> docker run -i --rm [-e NAME ...] <image>:<version>
 *   nuget -> dnx <identifier>@<version> --yes [-- <packageArguments>]   (.NET 10's tool runner)
 *   remotes[] -> a url entry with its headers (URL template variables filled)
 *
 * runtimeArguments go after the runtime, packageArguments after the package, as server.json says;
 * docker's `-e NAME=<secret>` among them becomes the variable NAME, passed on as `-e NAME`.
 * mcpb packages go through the bundle path (installPlans.ts); other kinds are refused by name.
 */
import { InstallError } from './installError.js';
import type { PlannedEntry } from './plannedEntry.js';
import { concat, fillTemplate, fixed, hasSecret, realText, slice, typed, type PlanText } from './planText.js';
import type { ServerJson, SjArgument, SjInput, SjKeyValue, SjPackage, SjTransport } from './serverJson.js';

/** One value the user is asked for before an install. */
export type { InstallInput } from '../../shared/install.js';
import type { InstallInput } from '../../shared/install.js';

export interface EntryPlan {
  entry: PlannedEntry;
  /** The runtime command this needs on PATH (npx, uvx, docker), none for a remote. */
  runtime?: string;
  inputs: InstallInput[];
  /** Required inputs without a value: the confirm is refused until they are given. */
  missing: string[];
}

export type Values = Readonly<Record<string, string>>;

const RUNTIMES: Record<string, string> = { npm: 'npx', pypi: 'uvx', oci: 'docker', nuget: 'dnx' };
/** docker's option that sets a variable in the container: `-e NAME=value`, or `-e NAME` to take it from docker's own environment. */
const DOCKER_ENV_OPTIONS = new Set(['-e', '--env']);
const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

class Collector {
  readonly inputs: InstallInput[] = [];
  readonly missing: string[] = [];
  constructor(private readonly values: Values) {}

  /**
   * The value of one input: its fixed `value` (its `{vars}` filled), else what the user typed,
   * else its default. Only what the user typed into a secret field (the input's own `isSecret`,
   * or that of the argument, variable or header it fills) is a secret piece: a value the
   * document fixes, a default included, is shown as it is.
   */
  valueOf(key: string, label: string, i: SjInput, secretAbove = false): PlanText | undefined {
    const secret = secretAbove || i.isSecret === true;
    if (i.value !== undefined) {
      return fillTemplate(i.value, (name) => {
        const v = i.variables?.[name];
        return v === undefined ? undefined : this.valueOf(`${key}.${name}`, `${label}: ${name}`, v, secret);
      });
    }
    const input: InstallInput = { key, label, required: i.isRequired === true, secret };
    if (i.description !== undefined) input.description = i.description;
    if (i.default !== undefined) input.default = i.default;
    if (i.choices !== undefined) input.choices = i.choices;
    this.inputs.push(input);
    const given = this.values[key];
    if (given !== undefined && given !== '') return typed(given, secret ? key : undefined);
    if (i.default !== undefined) return fixed(i.default);
    if (i.isRequired) this.missing.push(label);
    return undefined;
  }

  args(list: readonly SjArgument[] | undefined, prefix: string): { name?: string; value: PlanText }[] {
    const out: { name?: string; value: PlanText }[] = [];
    for (const [n, a] of (list ?? []).entries()) {
      if (a.type === 'named') {
        const value = this.valueOf(`${prefix}.${a.name}`, a.name, a);
        if (value === undefined) continue;
        if (a.format === 'boolean') {
          if (realText(value) === 'true') out.push({ value: fixed(a.name) });
        } else out.push({ name: a.name, value: concat(fixed(`${a.name}=`), value) });
      } else {
        const hint = a.valueHint ?? String(n);
        const value = this.valueOf(`${prefix}.${hint}`, hint, a);
        if (value !== undefined) out.push({ value });
      }
    }
    return out;
  }
}

function envOf(c: Collector, list: readonly SjKeyValue[] | undefined, where: 'env' | 'headers') {
  const out: Record<string, PlanText> = {};
  for (const kv of list ?? []) {
    const value = c.valueOf(`${where}.${kv.name}`, kv.name, kv);
    if (value !== undefined) out[kv.name] = value;
  }
  return out;
}

/**
 * docker's `-e NAME=<a secret the user typed>` among the runtime's arguments, taken out of the
 * command line: the value goes into docker's environment (the secret store keeps it, like any
 * secret variable) and docker passes it on with `-e NAME`, so it is never in an argv.
 */
function dockerSecretEnv(
  runtimeArgs: { name?: string; value: PlanText }[],
  env: Record<string, PlanText>,
): { name?: string; value: PlanText }[] {
  return runtimeArgs.filter((a) => {
    if (a.name === undefined || !DOCKER_ENV_OPTIONS.has(a.name) || !hasSecret(a.value)) return true;
    const assignment = slice(a.value, a.name.length + 1);
    const text = realText(assignment);
    const eq = text.indexOf('=');
    const name = text.slice(0, eq);
    if (eq < 1 || !ENV_NAME_RE.test(name) || hasSecret(slice(assignment, 0, eq)) || env[name] !== undefined)
      return true;
    env[name] = slice(assignment, eq + 1);
    return false;
  });
}

/** The entry for `pkg` of `server`, with the user's `values`. @throws InstallError for a kind that cannot run here. */
export function packageEntry(server: ServerJson, pkg: SjPackage, values: Values): EntryPlan {
  const runtimeDefault = RUNTIMES[pkg.registryType];
  if (!runtimeDefault) {
    throw new InstallError(
      pkg.registryType === 'mcpb'
        ? 'an mcpb package is installed as a bundle'
        : `packages of type "${pkg.registryType}" cannot be installed here (npm, pypi, oci, nuget, mcpb and remotes can)`,
    );
  }
  if (pkg.transport.type !== 'stdio')
    throw new InstallError(
      `${server.name}: a ${pkg.transport.type} package is not supported; use its remote, if it has one`,
    );
  // A package name, never an option of the runtime (npx `--call=...`, docker `--privileged`).
  if (pkg.identifier.startsWith('-') || /\s/.test(pkg.identifier) || [...pkg.identifier].some((ch) => ch < ' '))
    throw new InstallError(
      `${server.name}: its package identifier ${JSON.stringify(pkg.identifier)} starts with "-" or holds a space: refused`,
    );
  const c = new Collector(values);
  const runtime = pkg.runtimeHint ?? runtimeDefault;
  let runtimeNamed = c.args(pkg.runtimeArguments, 'runtime');
  const env = envOf(c, pkg.environmentVariables, 'env');
  if (pkg.registryType === 'oci' && runtime === 'docker') runtimeNamed = dockerSecretEnv(runtimeNamed, env);
  const runtimeArgs = runtimeNamed.map((a) => a.value);
  const packageArgs = c.args(pkg.packageArguments, 'args').map((a) => a.value);
  const has = (word: string) => runtimeArgs.some((a) => realText(a) === word);
  let args: PlanText[];
  if (pkg.registryType === 'npm') {
    const spec = fixed(pkg.version ? `${pkg.identifier}@${pkg.version}` : pkg.identifier);
    args = [...(runtime === 'npx' && !has('-y') ? [fixed('-y')] : []), ...runtimeArgs, spec, ...packageArgs];
  } else if (pkg.registryType === 'pypi') {
    const spec = fixed(pkg.version ? `${pkg.identifier}==${pkg.version}` : pkg.identifier);
    args = [...runtimeArgs, spec, ...packageArgs];
  } else if (pkg.registryType === 'nuget') {
    // `dnx` is `dotnet tool exec`: `--yes` skips its download prompt (stdin is the protocol), and
    // the tool's own arguments go after `--`, so dnx never reads them as its options.
    const spec = fixed(pkg.version ? `${pkg.identifier}@${pkg.version}` : pkg.identifier);
    const yes = runtime === 'dnx' && !has('--yes') ? [fixed('--yes')] : [];
    args = [...runtimeArgs, spec, ...yes, ...(packageArgs.length > 0 ? [fixed('--'), ...packageArgs] : [])];
  } else {
    const tagged =
      /[:@][^/]*$/.test(pkg.identifier) || !pkg.version ? pkg.identifier : `${pkg.identifier}:${pkg.version}`;
    const passEnv = Object.keys(env).flatMap((name) => [fixed('-e'), fixed(name)]);
    const run = runtime === 'docker' ? ['run', '-i', '--rm'].map(fixed) : [];
    args = [...run, ...runtimeArgs, ...passEnv, fixed(tagged), ...packageArgs];
  }
  const entry: PlannedEntry = { kind: 'stdio', command: fixed(runtime), args };
  if (Object.keys(env).length > 0) entry.env = env;
  return { entry, runtime, inputs: c.inputs, missing: c.missing };
}

/** The entry for `remote` of `server`, with the user's `values`. */
export function remoteEntry(server: ServerJson, remote: SjTransport, values: Values): EntryPlan {
  const c = new Collector(values);
  const url = fillTemplate(remote.url ?? '', (name) => {
    const v = remote.variables?.[name];
    return v === undefined ? undefined : c.valueOf(`url.${name}`, name, v);
  });
  let parsed: URL | undefined;
  try {
    parsed = new URL(realText(url));
  } catch {
    parsed = undefined;
  }
  if (c.missing.length === 0 && (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')))
    throw new InstallError(`${server.name}: the remote's URL "${realText(url)}" is not an http(s) URL`);
  // Written as the runtime's URL parser reads it, so the entry holds the URL the consent shows.
  const written = parsed && !hasSecret(url) ? fixed(parsed.href) : url;
  const headers = envOf(c, remote.headers, 'headers');
  const entry: PlannedEntry = { kind: 'remote', url: written, transport: remote.type === 'sse' ? 'sse' : 'http' };
  if (Object.keys(headers).length > 0) entry.headers = headers;
  return { entry, inputs: c.inputs, missing: c.missing };
}

/** What the user can choose to install from `server`: its packages and remotes, by index. */
export function installChoices(server: ServerJson): { kind: 'package' | 'remote'; index: number; label: string }[] {
  return [
    ...(server.packages ?? []).map((p, index) => ({
      kind: 'package' as const,
      index,
      label: `${p.registryType} ${p.identifier}${p.version ? ` ${p.version}` : ''}`,
    })),
    ...(server.remotes ?? []).map((r, index) => ({
      kind: 'remote' as const,
      index,
      label: `${r.type} ${r.url ?? ''}`,
    })),
  ];
}
