// An OTLP/HTTP trace collector on 127.0.0.1 (port 0) for the tracing tests: it takes the JSON
// the OTLP/HTTP exporter posts to /v1/traces and keeps each span flattened (ids as hex,
// attributes as plain values, the resource's service.name). `hang` keeps every request open
// unanswered (a collector that is there but never answers), until close.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's numbers: 2 SERVER, 3 CLIENT. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number; message?: string };
  service: string;
}

export const SPAN_KIND = { SERVER: 2, CLIENT: 3 } as const;

export interface Collector {
  /** The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Export requests received (answered or not). */
  readonly requests: number;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  status?: { code?: number; message?: string };
}
interface OtlpBody {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

/** Ids come as hex in OTLP JSON; base64 (the protobuf JSON mapping) is turned to hex too. */
function hex(id: string | undefined): string | undefined {
  if (!id) return undefined;
  if (/^[\da-f]+$/i.test(id)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
}

function plain(attrs: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attrs ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

export async function startCollector(opts: { hang?: boolean } = {}): Promise<Collector> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const sockets = new Set<Socket>();
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (opts.hang) return void held.push(res);
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody;
      for (const rs of body.resourceSpans ?? []) {
        const service = String(plain(rs.resource?.attributes)['service.name'] ?? '');
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: hex(s.traceId)!,
              spanId: hex(s.spanId)!,
              parentSpanId: hex(s.parentSpanId),
              name: s.name,
              kind: s.kind,
              attributes: plain(s.attributes),
              status: s.status ?? {},
              service,
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    get requests() {
      return requests;
    },
    close: async () => {
      for (const res of held) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback URL where nothing listens (a port taken, then given back). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
