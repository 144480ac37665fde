/**
 * An MCP Bundle's `manifest.json` (manifest_version 0.3; 0.2 and 0.4 read the same way for
 * what installing needs): checked by hand for the fields used here, and turned into the
 * command the server runs, with `${__dirname}`, `${user_config.<key>}`, `${HOME}` and
 * `${/}` filled and the platform's override applied.
 */
import { homedir } from 'node:os';
import { sep } from 'node:path';
import { InstallError } from './installError.js';
import { concat, fixed, typed, type PlanText } from './planText.js';
import type { InstallInput } from './serverJsonEntry.js';

export const MANIFEST_VERSIONS = ['0.2', '0.3', '0.4'];
const SERVER_TYPES = ['node', 'python', 'binary', 'uv'];
const CONFIG_TYPES = ['string', 'number', 'boolean', 'directory', 'file'];

export interface McpConfig {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}
export interface UserConfigField {
  type: string;
  title: string;
  description?: string;
  required?: boolean;
  default?: unknown;
  sensitive?: boolean;
  multiple?: boolean;
}
export interface BundleManifest {
  manifest_version: string;
  name: string;
  display_name?: string;
  version: string;
  description: string;
  author: { name: string; email?: string; url?: string };
  server: {
    type: string;
    entry_point: string;
    mcp_config: McpConfig & { platform_overrides?: Record<string, Partial<McpConfig>> };
  };
  tools?: { name: string; description?: string }[];
  prompts?: { name: string; description?: string }[];
  user_config?: Record<string, UserConfigField>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const strList = (v: unknown) => Array.isArray(v) && v.every(isStr);
const strMap = (v: unknown) => isObject(v) && Object.values(v).every(isStr);

/** `raw` as a manifest. @throws InstallError listing what is wrong. */
export function checkManifest(raw: unknown): BundleManifest {
  const bad: string[] = [];
  if (!isObject(raw)) throw new InstallError("the bundle's manifest.json is not an object");
  const version = raw.manifest_version ?? raw.dxt_version;
  if (!isStr(version) || !MANIFEST_VERSIONS.includes(version))
    bad.push(`manifest_version must be one of ${MANIFEST_VERSIONS.join(', ')}`);
  for (const k of ['name', 'version', 'description']) if (!isStr(raw[k]) || raw[k] === '') bad.push(`${k} is required`);
  if (!isObject(raw.author) || !isStr(raw.author.name)) bad.push('author.name is required');
  const server = raw.server;
  if (!isObject(server)) bad.push('server is required');
  else {
    if (!isStr(server.type) || !SERVER_TYPES.includes(server.type))
      bad.push(`server.type must be one of ${SERVER_TYPES.join(', ')}`);
    if (!isStr(server.entry_point)) bad.push('server.entry_point is required');
    const mc = server.mcp_config;
    if (!isObject(mc) || !isStr(mc.command)) bad.push('server.mcp_config.command is required');
    else {
      if (mc.args !== undefined && !strList(mc.args)) bad.push('server.mcp_config.args must be a list of strings');
      if (mc.env !== undefined && !strMap(mc.env)) bad.push('server.mcp_config.env must map names to strings');
    }
  }
  for (const k of ['tools', 'prompts']) {
    const list = raw[k];
    if (list !== undefined && !(Array.isArray(list) && list.every((t) => isObject(t) && isStr(t.name))))
      bad.push(`${k} must be a list of {name, description}`);
  }
  if (raw.user_config !== undefined) {
    if (!isObject(raw.user_config)) bad.push('user_config must be an object');
    else
      for (const [key, f] of Object.entries(raw.user_config)) {
        if (!/^[A-Za-z0-9_-]+$/.test(key))
          bad.push(`user_config key "${key}" has characters other than A-Z a-z 0-9 _ -`);
        if (!isObject(f) || !isStr(f.type) || !CONFIG_TYPES.includes(f.type) || !isStr(f.title))
          bad.push(`user_config.${key} needs a type (${CONFIG_TYPES.join(', ')}) and a title`);
      }
  }
  if (bad.length > 0) throw new InstallError(`the bundle's manifest.json is not valid: ${bad.slice(0, 4).join('; ')}`);
  return raw as unknown as BundleManifest;
}

/** The form the bundle's `user_config` asks for. */
export function bundleInputs(m: BundleManifest): InstallInput[] {
  return Object.entries(m.user_config ?? {}).map(([key, f]) => {
    const out: InstallInput = {
      key,
      label: f.title,
      required: f.required === true,
      secret: f.sensitive === true,
    };
    if (f.description !== undefined) out.description = f.description;
    if (f.default !== undefined && !Array.isArray(f.default)) out.default = String(f.default);
    return out;
  });
}

export interface BundleCommand {
  command: PlanText;
  args: PlanText[];
  env: Record<string, PlanText>;
  missing: string[];
}

/**
 * The command with its `${...}` filled. `dir` is the unpacked folder (a reference the entry
 * writes as `${QIMING_DATA_DIR}/...`); a `${user_config.<key>}` is what the user typed, a
 * secret piece when the field is `sensitive`, or else the field's default, which the bundle
 * fixes and is shown like the rest of its text.
 */
export function bundleCommand(
  m: BundleManifest,
  dir: PlanText,
  values: Readonly<Record<string, string>>,
  platform: NodeJS.Platform = process.platform,
): BundleCommand {
  const mc = m.server.mcp_config;
  const over = mc.platform_overrides?.[platform] ?? {};
  const base = {
    command: over.command ?? mc.command,
    args: over.args ?? mc.args ?? [],
    env: { ...mc.env, ...over.env },
  };
  const missing = new Set<string>();
  const fields = m.user_config ?? {};
  const fill = (s: string): PlanText => {
    const out: PlanText[] = [];
    let at = 0;
    for (const ref of s.matchAll(/\$\{([^}]+)\}/g)) {
      out.push(fixed(s.slice(at, ref.index)), ref[1] === '__dirname' ? dir : filled(ref[0], ref[1]));
      at = ref.index + ref[0].length;
    }
    return concat(...out, fixed(s.slice(at)));
  };
  const filled = (whole: string, name: string): PlanText => {
    if (name === 'HOME') return fixed(homedir());
    if (name === '/' || name === 'pathSeparator') return fixed(sep);
    const uc = /^user_config\.([A-Za-z0-9_-]+)$/.exec(name);
    if (!uc) return fixed(whole);
    const f = fields[uc[1]];
    if (!f) return fixed(whole);
    const given = values[uc[1]];
    if (given !== undefined && given !== '') return typed(given, f.sensitive ? uc[1] : undefined);
    if (f.default !== undefined) return fixed(String(f.default));
    if (f.required) missing.add(f.title);
    return [];
  };
  const env: Record<string, PlanText> = {};
  for (const [k, v] of Object.entries(base.env)) env[k] = fill(v);
  return { command: fill(base.command), args: base.args.map(fill), env, missing: [...missing] };
}
