/**
 * `--allow-tools a,b` / `--deny-tools a,b` for stdio aggregation. In aggregation the client
 * sees `<serverId>__<tool>`, so a name may be written either way:
 * - `srv__echo` (the exposed name) applies to server `srv` only, as its tool `echo`;
 * - `echo` (a server's own name) applies to every server that has a tool of that name.
 * The result is merged into each entry's own filter, so it narrows, never widens, what the
 * config allows ("applied after the per-entry filters").
 */
import type { ProxyConfig } from '../config/config.js';
import { NAME_SEPARATOR } from '../hub/naming.js';
import { mergeFilters, type ToolFilter } from '../config/toolFilter.js';

/** The server a `<serverId>__<tool>` name points at (longest matching id), if any. */
function ownerOf(name: string, ids: readonly string[]): string | undefined {
  let owner: string | undefined;
  for (const id of ids) {
    if (
      name.startsWith(`${id}${NAME_SEPARATOR}`) &&
      name.length > id.length + NAME_SEPARATOR.length &&
      (owner === undefined || id.length > owner.length)
    )
      owner = id;
  }
  return owner;
}

/** The names of `list` that concern server `id`, as that server names its tools. */
function namesFor(id: string, list: readonly string[], ids: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of list) {
    const owner = ownerOf(name, ids);
    if (owner === undefined) out.push(name);
    else if (owner === id) out.push(name.slice(id.length + NAME_SEPARATOR.length));
  }
  return [...new Set(out)];
}

/** The command-line filter for one server; undefined when neither list was given. */
export function cliToolFilterFor(
  id: string,
  ids: readonly string[],
  allow?: readonly string[],
  deny?: readonly string[],
): ToolFilter | undefined {
  if (allow === undefined && deny === undefined) return undefined;
  const filter: ToolFilter = {};
  // An allow list that names nothing of this server still restricts it (to nothing).
  if (allow !== undefined) filter.allowExact = namesFor(id, allow, ids);
  if (deny !== undefined) filter.denyExact = namesFor(id, deny, ids);
  return filter;
}

/** `config` with the command-line tool lists merged into every entry's own filter. */
export function applyCliToolFilters(
  config: ProxyConfig,
  allow?: readonly string[],
  deny?: readonly string[],
): ProxyConfig {
  if (allow === undefined && deny === undefined) return config;
  const ids = config.servers.map((s) => s.id);
  return {
    ...config,
    servers: config.servers.map((s) => {
      const cli = cliToolFilterFor(s.id, ids, allow, deny);
      return cli ? { ...s, toolFilter: mergeFilters(s.toolFilter, cli) } : s;
    }),
  };
}
