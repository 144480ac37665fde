/**
 * What the proxy's transport to a 2026-07-28 HTTP server knows of its tools' `x-mcp-header`
 * annotations: learnt from each `tools/list` answer passing through it, used on each
 * `tools/call` POST to send the `Mcp-Param-*` headers (common/mcpParamHeaders.ts). A tool
 * whose annotations break the rules is left out of the list, with a warning, as 2026-07-28
 * asks of an HTTP client ("a single malformed tool definition does not prevent other valid
 * tools from being used").
 */
import type { Logger } from '../../common/logger.js';
import { paramHeaders, paramHeadersOf, type ParamHeader } from '../../common/mcpParamHeaders.js';

type Wire = Record<string, unknown>;

/** Bound on remembered tools (a server that keeps renaming them cannot grow it without limit). */
const MAX_TOOLS = 10_000;

export class ToolParamHeaders {
  private readonly specs = new Map<string, ParamHeader[]>();

  constructor(private readonly logger?: Logger) {}

  /** A `tools/list` response as the proxy keeps it: invalid tools dropped, annotations learnt. */
  listed(response: Wire): Wire {
    const result = response.result as Wire | undefined;
    const tools = result?.tools;
    if (!Array.isArray(tools)) return response;
    const kept: unknown[] = [];
    for (const t of tools as Wire[]) {
      const name = typeof t?.name === 'string' ? t.name : undefined;
      const specs = paramHeadersOf(t?.inputSchema);
      if (typeof specs === 'string') {
        this.logger?.warn(`tool ${JSON.stringify(name)} left out: invalid x-mcp-header (${specs})`);
        continue;
      }
      kept.push(t);
      if (name === undefined) continue;
      if (specs.length > 0) {
        if (this.specs.size >= MAX_TOOLS && !this.specs.has(name)) this.specs.delete(this.specs.keys().next().value!);
        this.specs.set(name, specs);
      } else this.specs.delete(name);
    }
    return kept.length === tools.length ? response : { ...response, result: { ...result, tools: kept } };
  }

  /** The `Mcp-Param-*` headers of a `tools/call` with these params. */
  headersFor(params: Wire | undefined): Record<string, string> | undefined {
    const specs = typeof params?.name === 'string' ? this.specs.get(params.name) : undefined;
    return specs && paramHeaders(specs, params!.arguments);
  }
}
