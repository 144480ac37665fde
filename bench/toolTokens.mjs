// Token weight of the captured tool catalog (tests/fixtures/toolCatalog/): per server, the
// tools, the bytes of their JSON (`JSON.stringify(tools)`, as tools/list carries them), the
// o200k tokens of that JSON (gpt-tokenizer's o200k_base encoding) and the run-time estimate
// of src/proxy/hub/economy/tokenEstimate.ts (bundled with esbuild into a temp folder); then the
// totals over the merged list, the measured bytes per token, and what a real tokenizer would
// cost at run time (bundle size, load and count time) against the estimate.
//   node bench/toolTokens.mjs [--cost-rounds N]   (markdown tables on stdout)
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { options, ROOT } from './lib/common.mjs';

const opts = options({ costRounds: 5 }, { costRounds: 1 });
const CATALOG = join(ROOT, 'tests', 'fixtures', 'toolCatalog');
const TOKENIZER = 'gpt-tokenizer/encoding/o200k_base';

const dir = mkdtempSync(join(tmpdir(), 'qiming-bench-tokens-'));
try {
  const estimator = join(dir, 'tokenEstimate.mjs');
  await build({
    entryPoints: [join(ROOT, 'src/proxy/hub/economy/tokenEstimate.ts')],
    outfile: estimator,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  /** @type {typeof import('../src/proxy/hub/economy/tokenEstimate.js')} */
  const { estimateTokens, BYTES_PER_TOKEN } = await import(pathToFileURL(estimator).href);

  const loadStart = performance.now();
  const { countTokens } = await import(TOKENIZER);
  const loadMs = performance.now() - loadStart;

  /** @type {Array<{ id: string, tools: unknown[] }>} */
  const servers = readdirSync(CATALOG)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ id: f.slice(0, -5), tools: JSON.parse(readFileSync(join(CATALOG, f), 'utf8')).tools }));
  /** @param {unknown[]} tools */
  const measure = (tools) => {
    const json = JSON.stringify(tools);
    const tokens = countTokens(json);
    const estimate = estimateTokens(tools);
    return { count: tools.length, bytes: Buffer.byteLength(json), tokens, estimate, ratio: estimate / tokens };
  };
  const rows = servers.map((s) => ({ id: s.id, ...measure(s.tools) })).sort((a, b) => b.tokens - a.tokens);
  const merged = servers.flatMap((s) => s.tools);
  const total = measure(merged);

  const pct = (/** @type {number} */ r) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)}%`;
  const n = (/** @type {number} */ v) => v.toLocaleString('en-US');
  console.log(`BYTES_PER_TOKEN = ${BYTES_PER_TOKEN}\n`);
  console.log('| server | tools | JSON bytes | o200k tokens | bytes/token | estimate | estimate vs o200k |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows)
    console.log(
      `| ${r.id} | ${r.count} | ${n(r.bytes)} | ${n(r.tokens)} | ${(r.bytes / r.tokens).toFixed(2)} | ${n(r.estimate)} | ${pct(r.ratio)} |`,
    );
  console.log(
    `| **total** (merged list) | **${total.count}** | **${n(total.bytes)}** | **${n(total.tokens)}** | **${(total.bytes / total.tokens).toFixed(2)}** | **${n(total.estimate)}** | **${pct(total.ratio)}** |`,
  );
  const ratios = rows.map((r) => r.ratio);
  console.log(
    `\nper-server estimate vs o200k: ${pct(Math.min(...ratios))} to ${pct(Math.max(...ratios))}; ` +
      `${(total.tokens / 2000).toFixed(1)}% of a 200k-token context (o200k)`,
  );

  // What counting with the tokenizer at run time would cost, against the estimate.
  const bundle = join(dir, 'o200k.bundle.mjs');
  await build({
    stdin: { contents: `export { countTokens } from '${TOKENIZER}';`, resolveDir: ROOT, loader: 'js' },
    outfile: bundle,
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  const proxyBytes = readdirSync(join(ROOT, 'dist', 'proxy'))
    .filter((f) => f.endsWith('.cjs'))
    .reduce((sum, f) => sum + statSync(join(ROOT, 'dist', 'proxy', f)).size, 0);
  const countMs = [];
  const estimateMs = [];
  const json = JSON.stringify(merged);
  for (let i = 0; i < opts.costRounds; i++) {
    let t = performance.now();
    countTokens(json);
    countMs.push(performance.now() - t);
    t = performance.now();
    estimateTokens(merged);
    estimateMs.push(performance.now() - t);
  }
  const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log('\n| | o200k tokenizer (gpt-tokenizer) | estimate |');
  console.log('|---|---:|---:|');
  console.log(
    `| code shipped | ${n(statSync(bundle).size)} bytes minified (all of dist/proxy: ${n(proxyBytes)}) | a few lines |`,
  );
  console.log(`| load (first import, this process) | ${loadMs.toFixed(0)} ms | 0 |`);
  console.log(
    `| count the merged list (median of ${opts.costRounds}) | ${median(countMs).toFixed(1)} ms | ${median(estimateMs).toFixed(1)} ms |`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
