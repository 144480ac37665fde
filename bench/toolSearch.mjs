// Bench: tool search over the 22-server catalog (tests/fixtures/toolCatalog), with the built
// bundle file dist/proxy/qiming-mcp-tool-search.cjs as an aggregate's first search_tools
// loads it. Measured: recall@1/@5/@10 of the benchmark's tasks (all, tuning set, held-out),
// the time to build the index of every tool (the first build in the process, with the
// bundle's compile, and the median of later builds), the latency of one search (p50/p99 over
// every task, several rounds), and the bundle file's size.
//   node bench/toolSearch.mjs [--quick] [--builds 20] [--rounds 20]
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { ROOT, environment, median, now, options, percentile, round, saveResults, table } from './lib/common.mjs';
import { catalogTasks, catalogTools, recall } from './lib/toolSearchRecall.mjs';

const opts = options({ builds: 20, rounds: 20 }, { builds: 3, rounds: 3 });
const BUNDLE = join(ROOT, 'dist', 'proxy', 'qiming-mcp-tool-search.cjs');
if (!existsSync(BUNDLE)) {
  process.stderr.write(`${BUNDLE} is missing: build first (node scripts/build.mjs proxy)\n`);
  process.exit(2);
}

// The hub's server summaries, from its source: serverSummary.ts imports nothing, so it compiles alone.
const SUMMARY_SOURCE = join(ROOT, 'src', 'proxy', 'hub', 'economy', 'serverSummary.ts');
const summaryModule = transformSync(readFileSync(SUMMARY_SOURCE, 'utf8'), { loader: 'ts', format: 'esm' }).code;
const { serverSummary } = await import(`data:text/javascript,${encodeURIComponent(summaryModule)}`);
const tools = catalogTools(serverSummary);
const tasks = catalogTasks();
const KS = [1, 5, 10];

/** @type {{ buildToolIndex: (tools: ReturnType<typeof catalogTools>) => import('./lib/toolSearchRecall.mjs').Index }} */
const toolSearch = createRequire(import.meta.url)(BUNDLE).get('src/proxy/hub/economy/toolSearch.ts');

const t0 = now();
const index = toolSearch.buildToolIndex(tools);
const firstBuildMs = now() - t0;
const builds = [];
for (let i = 0; i < Number(opts.builds); i++) {
  const s = now();
  toolSearch.buildToolIndex(tools);
  builds.push(now() - s);
}

const sets = [
  { set: 'all', tasks },
  { set: 'tuning', tasks: tasks.filter((t) => !t.heldOut) },
  { set: 'held out', tasks: tasks.filter((t) => t.heldOut) },
];
const recallRows = sets.map(({ set, tasks: ts }) => {
  const r = recall(index, ts, KS);
  return {
    set,
    tasks: r.tasks,
    ...Object.fromEntries(KS.map((k) => [`recall@${k}`, `${round(r.recall[k] * 100, 1)}%`])),
  };
});

const latencies = [];
for (let r = 0; r < Number(opts.rounds); r++) {
  for (const t of tasks) {
    const s = now();
    index.search(t.task, 5);
    latencies.push(now() - s);
  }
}

const timing = {
  tools: tools.length,
  'first build (ms)': round(firstBuildMs, 1),
  'build p50 (ms)': round(median(builds), 1),
  'search p50 (ms)': round(percentile(latencies, 50), 3),
  'search p99 (ms)': round(percentile(latencies, 99), 3),
  searches: latencies.length,
  'bundle (KB)': round(statSync(BUNDLE).size / 1024, 1),
};

process.stdout.write(`${table(recallRows)}\n\n${table([timing])}\n`);
saveResults('toolSearch', { ...environment(), options: opts, recall: recallRows, timing });
