// Bench: tool search over the 22-server catalog (tests/fixtures/toolCatalog), with the built
// bundle file dist/proxy/qiming-mcp-tool-search.cjs as an aggregate's first search_tools
// loads it. Measured: recall@1/@5/@10 of the benchmark's tasks (all, tuning set, held-out),
// the time to build the index of every tool (the first build in the process, with the
// bundle's compile, and the median of later builds), the latency of one search (p50/p99 over
// every task, several rounds), the bundle file's size, and the time of one search for
// requests far past what a request is (a 40 KB word, a 1 MB word, 1 MB of a-a-a, 100,000
// words, 2,000 random 31-letter words; p50 and max over the rounds).
// With QIMING_TOOL_SEARCH_BEFORE=<another build's qiming-mcp-tool-search.cjs>: how many tasks'
// first ten differ between the two, and both latencies measured in the same rounds, each
// task searched by one then the other, alternately first (the hostile requests are not
// searched there: an unbounded build may not return; bench/hostileInputs.mjs times them
// through the CLI with a deadline).
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

const BEFORE = process.env.QIMING_TOOL_SEARCH_BEFORE;
/** @type {import('./lib/toolSearchRecall.mjs').Index | undefined} */
const before = BEFORE
  ? createRequire(import.meta.url)(BEFORE)
      .get('src/proxy/hub/economy/toolSearch.ts')
      .buildToolIndex(tools)
  : undefined;

/** @type {number[]} */
const latencies = [];
/** @type {number[]} */
const beforeLatencies = [];
for (let r = 0; r < Number(opts.rounds); r++) {
  for (const t of tasks) {
    const pair = before && r % 2 ? [before, index] : [index, before];
    for (const ix of pair) {
      if (!ix) continue;
      const s = now();
      ix.search(t.task, 5);
      (ix === index ? latencies : beforeLatencies).push(now() - s);
    }
  }
}

let seed = 1;
const letter = () => String.fromCharCode(97 + ((seed = (seed * 16807) % 2147483647) % 26));
const HOSTILE = {
  '40 KB word': 'x'.repeat(40 * 1024),
  '1 MB word': 'x'.repeat(1024 * 1024),
  '1 MB of a-a-a': 'a-'.repeat(512 * 1024),
  '100,000 words': 'take a screenshot '.repeat(100_000 / 4),
  '2,000 random 31-letter words': Array.from({ length: 2000 }, () => Array.from({ length: 31 }, letter).join('')).join(
    ' ',
  ),
};
const hostileRows = Object.entries(HOSTILE).map(([request, query]) => {
  const times = [];
  for (let r = 0; r < Number(opts.rounds); r++) {
    const s = now();
    index.search(query, 5);
    times.push(now() - s);
  }
  return { request, 'p50 (ms)': round(median(times), 3), 'max (ms)': round(Math.max(...times), 3) };
});

const differ = before
  ? tasks.filter(
      (t) =>
        index
          .search(t.task, 10)
          .map((h) => h.name)
          .join() !==
        before
          .search(t.task, 10)
          .map((h) => h.name)
          .join(),
    ).length
  : undefined;

const timing = {
  tools: tools.length,
  'first build (ms)': round(firstBuildMs, 1),
  'build p50 (ms)': round(median(builds), 1),
  'search p50 (ms)': round(percentile(latencies, 50), 3),
  'search p99 (ms)': round(percentile(latencies, 99), 3),
  searches: latencies.length,
  'bundle (KB)': round(statSync(BUNDLE).size / 1024, 1),
};

const beside = before
  ? {
      before: BEFORE,
      'tasks whose first ten differ': differ,
      'search p50 (ms)': round(percentile(beforeLatencies, 50), 3),
      'search p99 (ms)': round(percentile(beforeLatencies, 99), 3),
      'p50 ratio (this / before)': round(percentile(latencies, 50) / percentile(beforeLatencies, 50), 3),
    }
  : undefined;

process.stdout.write(`${table(recallRows)}\n\n${table([timing])}\n\n${table(hostileRows)}\n`);
if (beside) process.stdout.write(`\n${table([beside])}\n`);
saveResults('toolSearch', {
  ...environment(),
  options: opts,
  recall: recallRows,
  timing,
  hostile: hostileRows,
  ...(beside ? { beside } : {}),
});
