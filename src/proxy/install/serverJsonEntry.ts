/**
 * A server.json package or remote turned into a config entry: the command line it runs (or
 * the URL it reaches), the values it asks the user for, and which of them are secrets.
 *
 *   npm  -> npx -y <identifier>@<version>      (runtimeHint replaces npx)
 *   pypi -> uvx <identifier>==<version>
 *   oci  -> docker run -i --rm [-e NAME ...] <image>:<version>
 *   nuget -> dnx <identifier>@<version> --yes [-- <packageArguments>]   (.NET 10's tool runner)
 *   remotes[] -> a url entry with its headers (URL template variables filled)
 *
 * runtimeArguments go after the runtime, packageArguments after the package, as server.json says.
 * mcpb packages go through the bundle path (installPlans.ts); other kinds are refused by name.
 */
import type { EntryDraft } from '../../shared/configContract.js';
import { commandLine, fillTemplate } from './commandLine.js';
import { InstallError } from './installError.js';
import { asLiteral, literalValues } from './literal.js';
import type { ServerJson, SjArgument, SjInput, SjKeyValue, SjPackage, SjTransport } from './serverJson.js';

/** One value the user is asked for before an install. */
export type { InstallInput } from '../../shared/install.js';
import type { InstallInput } from '../../shared/install.js';

export interface EntryPlan {
  entry: EntryDraft;
  /** The exact command line, or the URL of a remote. */
  shown: string;
  /** The runtime command this needs on PATH (npx, uvx, docker), none for a remote. */
  runtime?: string;
  inputs: InstallInput[];
  /** Required inputs without a value: the confirm is refused until they are given. */
  missing: string[];
  /** Env var or header names whose values are secrets (masked wherever shown). */
  secretKeys: { where: 'env' | 'headers'; key: string }[];
}

export type Values = Readonly<Record<string, string>>;

const RUNTIMES: Record<string, string> = { npm: 'npx', pypi: 'uvx', oci: 'docker', nuget: 'dnx' };

function inputOf(key: string, label: string, i: SjInput): InstallInput {
  const out: InstallInput = { key, label, required: i.isRequired === true, secret: i.isSecret === true };
  if (i.description !== undefined) out.description = i.description;
  if (i.default !== undefined) out.default = i.default;
  if (i.choices !== undefined) out.choices = i.choices;
  return out;
}

class Collector {
  readonly inputs: InstallInput[] = [];
  readonly missing: string[] = [];
  constructor(private readonly values: Values) {}

  /** The value of one input: fixed `value` (its `{vars}` filled), else the user's, else the default. */
  valueOf(key: string, label: string, i: SjInput): string | undefined {
    if (i.value !== undefined) {
      return fillTemplate(i.value, (name) => {
        const v = i.variables?.[name];
        return v === undefined ? undefined : this.valueOf(`${key}.${name}`, `${label}: ${name}`, v);
      });
    }
    this.inputs.push(inputOf(key, label, i));
    const given = this.values[key];
    if (given !== undefined && given !== '') return given;
    if (i.default !== undefined) return i.default;
    if (i.isRequired) this.missing.push(label);
    return undefined;
  }

  args(list: readonly SjArgument[] | undefined, prefix: string): string[] {
    const out: string[] = [];
    for (const [n, a] of (list ?? []).entries()) {
      if (a.type === 'named') {
        const value = this.valueOf(`${prefix}.${a.name}`, a.name, a);
        if (value === undefined) continue;
        out.push(a.format === 'boolean' ? a.name : `${a.name}=${value}`);
        if (a.format === 'boolean' && value !== 'true') out.pop();
      } else {
        const hint = a.valueHint ?? String(n);
        const value = this.valueOf(`${prefix}.${hint}`, hint, a);
        if (value !== undefined) out.push(value);
      }
    }
    return out;
  }
}

function envOf(c: Collector, list: readonly SjKeyValue[] | undefined, where: 'env' | 'headers') {
  const out: Record<string, string> = {};
  const secrets: EntryPlan['secretKeys'] = [];
  for (const kv of list ?? []) {
    const value = c.valueOf(`${where}.${kv.name}`, kv.name, kv);
    if (value === undefined) continue;
    out[kv.name] = value;
    if (kv.isSecret) secrets.push({ where, key: kv.name });
  }
  return { out, secrets };
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
  const runtimeArgs = c.args(pkg.runtimeArguments, 'runtime');
  const { out: env, secrets } = envOf(c, pkg.environmentVariables, 'env');
  const packageArgs = c.args(pkg.packageArguments, 'args');
  let args: string[];
  if (pkg.registryType === 'npm') {
    const spec = pkg.version ? `${pkg.identifier}@${pkg.version}` : pkg.identifier;
    args = [...(runtime === 'npx' && !runtimeArgs.includes('-y') ? ['-y'] : []), ...runtimeArgs, spec, ...packageArgs];
  } else if (pkg.registryType === 'pypi') {
    const spec = pkg.version ? `${pkg.identifier}==${pkg.version}` : pkg.identifier;
    args = [...runtimeArgs, spec, ...packageArgs];
  } else if (pkg.registryType === 'nuget') {
    // `dnx` is `dotnet tool exec`: `--yes` skips its download prompt (stdin is the protocol), and
    // the tool's own arguments go after `--`, so dnx never reads them as its options.
    const spec = pkg.version ? `${pkg.identifier}@${pkg.version}` : pkg.identifier;
    const yes = runtime === 'dnx' && !runtimeArgs.includes('--yes') ? ['--yes'] : [];
    args = [...runtimeArgs, spec, ...yes, ...(packageArgs.length > 0 ? ['--', ...packageArgs] : [])];
  } else {
    const tagged =
      /[:@][^/]*$/.test(pkg.identifier) || !pkg.version ? pkg.identifier : `${pkg.identifier}:${pkg.version}`;
    const passEnv = Object.keys(env).flatMap((name) => ['-e', name]);
    args = [...(runtime === 'docker' ? ['run', '-i', '--rm'] : []), ...runtimeArgs, ...passEnv, tagged, ...packageArgs];
  }
  // Written literally (literal.ts): nothing of the registry's text is expanded at start.
  const entry: EntryDraft = { kind: 'stdio', command: asLiteral(runtime), args: args.map(asLiteral) };
  if (Object.keys(env).length > 0) entry.env = literalValues(env);
  return {
    entry,
    shown: commandLine(runtime, args),
    runtime,
    inputs: c.inputs,
    missing: c.missing,
    secretKeys: secrets,
  };
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
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (c.missing.length === 0 && (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')))
    throw new InstallError(`${server.name}: the remote's URL "${url}" is not an http(s) URL`);
  const { out: headers, secrets } = envOf(c, remote.headers, 'headers');
  const entry: EntryDraft = { kind: 'remote', url: asLiteral(url), transport: remote.type === 'sse' ? 'sse' : 'http' };
  if (Object.keys(headers).length > 0) entry.headers = literalValues(headers);
  return { entry, shown: url, inputs: c.inputs, missing: c.missing, secretKeys: secrets };
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
