/**
 * The `Mcp-Param-{Name}` headers of MCP 2026-07-28 Streamable HTTP: a tool whose `inputSchema`
 * marks a property with `x-mcp-header` has that argument mirrored into a header on every
 * `tools/call` POST. Both sides of the proxy use this file: the upstream transport to a
 * modern HTTP server sends the headers (protocol/rev2026-07-28/httpClientTransport.ts), the bridge's modern endpoint
 * checks them against the body (bridge/rev2026Endpoint.ts), with the value encoding the revision
 * defines ("Value Encoding": plain visible ASCII, else `=?base64?...?=`, decoded strictly).
 */

/**
 * The body field each method's `Mcp-Name` header mirrors (sent by protocol/rev2026-07-28/httpClientTransport.ts,
 * checked by bridge/rev2026Endpoint.ts); the tasks extension (SEP-2663) routes tasks/get|update|cancel
 * by `Mcp-Name: <taskId>`.
 */
export const MCP_NAME_FIELD: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** One annotated property: the chain of `properties` keys to it, and its header name. */
export interface ParamHeader {
  path: string[];
  name: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE = new Set(['string', 'integer', 'boolean']);
/** Keywords under which an annotation is not statically reachable (the definition is then invalid). */
const NESTED = [
  'items',
  'prefixItems',
  'additionalProperties',
  'patternProperties',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
const MAX_DEPTH = 32;

type Schema = Record<string, unknown>;

/** A header value as "Value Encoding" wants it: plain visible ASCII, else `=?base64?...?=`. */
export function headerValue(v: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(v) && !(v.startsWith('=?base64?') && v.endsWith('?='));
  return plain ? v : `=?base64?${Buffer.from(v, 'utf8').toString('base64')}?=`;
}

/**
 * A received header value decoded: the `=?base64?...?=` sentinel decoded strictly (canonical
 * padding, the Base64 alphabet only, valid UTF-8), any other value literal. Undefined when
 * the sentinel holds no valid Base64.
 */
export function decodeHeaderValue(v: string): string | undefined {
  const value = v.trim(); // RFC 9110 5.5: optional whitespace is not part of the value
  if (!(value.startsWith('=?base64?') && value.endsWith('?=') && value.length >= 11)) return value;
  const b64 = value.slice(9, -2);
  if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return undefined;
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.toString('base64') !== b64) return undefined;
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}

/**
 * The `x-mcp-header` annotations of a tool's `inputSchema`, or a string saying why the
 * definition is invalid (the rules of "Schema Extension").
 */
export function paramHeadersOf(inputSchema: unknown): ParamHeader[] | string {
  const out: ParamHeader[] = [];
  const seen = new Map<string, string>();
  const walk = (s: unknown, path: string[], reachable: boolean, depth: number): string | undefined => {
    if (!s || typeof s !== 'object' || depth > MAX_DEPTH) return undefined;
    const schema = s as Schema;
    const raw = schema['x-mcp-header'];
    if (raw !== undefined) {
      const at = path.join('.') || '<root>';
      if (!reachable || path.length === 0)
        return `${at}: x-mcp-header is only allowed on properties reachable through "properties"`;
      if (typeof raw !== 'string' || !TOKEN.test(raw))
        return `${at}: x-mcp-header ${JSON.stringify(raw)} is not an HTTP token`;
      if (typeof schema.type !== 'string' || !PRIMITIVE.has(schema.type))
        return `${at}: x-mcp-header needs type string, integer or boolean`;
      const prior = seen.get(raw.toLowerCase());
      if (prior !== undefined) return `x-mcp-header "${raw}" is declared twice (also on ${prior})`;
      seen.set(raw.toLowerCase(), at);
      out.push({ path, name: raw });
    }
    const props = schema.properties;
    if (props && typeof props === 'object') {
      for (const [k, v] of Object.entries(props as Schema)) {
        const bad = walk(v, [...path, k], reachable, depth + 1);
        if (bad) return bad;
      }
    }
    for (const key of NESTED) {
      const sub = schema[key];
      for (const v of Array.isArray(sub) ? sub : [sub]) {
        const bad = walk(v, path, false, depth + 1);
        if (bad) return bad;
      }
    }
    return undefined;
  };
  return walk(inputSchema, [], true, 0) ?? out;
}

/** The argument at `path`, as the header carries it ("Type conversion"); undefined when absent or null. */
export function paramText(args: unknown, path: string[]): string | undefined {
  let v: unknown = args;
  for (const k of path) {
    if (!v || typeof v !== 'object') return undefined;
    v = (v as Schema)[k];
  }
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return undefined;
}

/** The headers a `tools/call` with `args` carries for `specs`. */
export function paramHeaders(specs: ParamHeader[], args: unknown): Record<string, string> {
  const h: Record<string, string> = {};
  for (const s of specs) {
    const text = paramText(args, s.path);
    if (text !== undefined) h[`Mcp-Param-${s.name}`] = headerValue(text);
  }
  return h;
}

/**
 * Why the `Mcp-Param-*` headers of a `tools/call` disagree with its arguments, if they do:
 * a value in the body needs its header, decoded equal to it ("Server Behavior for Custom
 * Headers"). `header(name)` reads one request header (lower-case name).
 */
export function paramHeaderMismatch(
  specs: ParamHeader[],
  args: unknown,
  header: (name: string) => string | undefined,
): string | undefined {
  for (const s of specs) {
    const expected = paramText(args, s.path);
    const raw = header(`mcp-param-${s.name.toLowerCase()}`);
    if (expected === undefined) continue;
    if (raw === undefined) return `Mcp-Param-${s.name} header is required (the body has ${s.path.join('.')})`;
    const got = decodeHeaderValue(raw);
    if (got === undefined) return `Mcp-Param-${s.name} header has an invalid Base64 value`;
    if (got !== expected) return `Mcp-Param-${s.name} header value '${got}' does not match body value '${expected}'`;
  }
  return undefined;
}
