// A resource URI as the activity log and the traces keep it, over a real bridge (its
// /activity) with spans sent to an OTLP collector on loopback: a URI's userinfo, its query
// values and a configured secret in it never reach a record or a span (SERVER and CLIENT),
// and a URI with nothing to hide is kept as the client wrote it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityPage } from '../../../src/shared/activity.js';
import { cleanupBridges, startBridge, waitFor } from '../../helpers/bridgeProcess.js';
import { fixtureEntry } from '../../helpers/proxyCli.js';
import { SPAN_KIND, startCollector, type Collector } from '../../helpers/otlpCollector.js';

/** Batches leave at once, so the test waits on spans, not on the SDK's default 5 s delay. */
const FAST_BATCH = { OTEL_BSP_SCHEDULE_DELAY: '50' };
/** The server entry's own secret (an env value named as a key): masked wherever it appears. */
const ENTRY_KEY = 'nk4f8a2b9c7d1e6f3a5b0c';
const PASSWORD = 'hunter2-password';
const QUERY_TOKEN = 'tok-7Hq2-never-recorded';

/** Each URI read, and what the log and the spans show of it. */
const URIS: [sent: string, shown: string][] = [
  [`https://alice:${PASSWORD}@files.example/doc.txt`, 'https://files.example/doc.txt'],
  [`fixture://info?token=${QUERY_TOKEN}&page=2`, 'fixture://info?token=***&page=***'],
  [`notes://${ENTRY_KEY}/today`, 'notes://***/today'],
  ['file:///home/me/笔记.md', 'file:///home/me/笔记.md'],
];
const SECRETS = [PASSWORD, QUERY_TOKEN, ENTRY_KEY];

const clients: Client[] = [];
let collector: Collector | undefined;

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await cleanupBridges();
  await collector?.close();
  collector = undefined;
});

describe('resource URIs in the activity log and the traces', () => {
  it('mask userinfo, query values and configured secrets, and keep a plain URI as written', async () => {
    collector = await startCollector();
    const b = await startBridge({
      config: { mcpServers: { alpha: { ...fixtureEntry('alpha'), env: { NOTES_API_KEY: ENTRY_KEY } } } },
      env: { ...FAST_BATCH, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
    });
    const c = new Client({ name: 'reader', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${b.url}/mcp/alpha`), { requestInit: { headers: b.auth } }),
    );
    clients.push(c);
    // The fixture knows none of them: each read is answered with an error, and recorded.
    for (const [uri] of URIS) await expect(c.readResource({ uri })).rejects.toThrow();

    const reads = await waitFor(
      async () => {
        const page = (await (await b.fetch('/activity?text=resources/read')).json()) as ActivityPage;
        return page.records.length >= URIS.length ? page.records : undefined;
      },
      20_000,
      'the reads in the activity log',
    );
    expect(reads.map((r) => r.name).reverse()).toEqual(URIS.map(([, shown]) => shown));
    const recorded = JSON.stringify(reads);
    for (const secret of SECRETS) expect(recorded).not.toContain(secret);

    const spans = await waitFor(
      () => {
        const s = collector!.spans.filter((x) => x.attributes['mcp.method.name'] === 'resources/read');
        return s.length >= 2 * URIS.length ? s : undefined;
      },
      20_000,
      'a SERVER and a CLIENT span of each read',
    );
    for (const kind of [SPAN_KIND.SERVER, SPAN_KIND.CLIENT]) {
      const uris = spans.filter((s) => s.kind === kind).map((s) => s.attributes['mcp.resource.uri']);
      expect(uris.sort(), `kind ${kind}`).toEqual(URIS.map(([, shown]) => shown).sort());
    }
    const traced = JSON.stringify(spans);
    for (const secret of SECRETS) expect(traced).not.toContain(secret);
  });
});
