// Tool search on the real tool lists of 22 servers (tests/fixtures/toolCatalog): recall@1 and
// recall@5 of the benchmark's tasks, over all of them, the held-out third and the tuning
// set, each kept at a floor a little under what the ranking measures (docs/BENCHMARKS.md,
// "Tool economy: search recall"), so a change that ranks worse fails here.
import { describe, expect, it } from 'vitest';
import { catalogTasks, catalogTools, recall } from '../../../../bench/lib/toolSearchRecall.mjs';
import { buildToolIndex } from '../../../../src/proxy/hub/economy/toolSearch.js';
import { serverSummary } from '../../../../src/proxy/hub/economy/serverSummary.js';

const tools = catalogTools(serverSummary);
const tasks = catalogTasks();
const index = buildToolIndex(tools);

/** Floors per task set: measured recall, rounded down by a task or so. */
const FLOORS = {
  all: { tasks: () => tasks, at1: 0.7, at5: 0.925 },
  heldOut: { tasks: () => tasks.filter((t) => t.heldOut), at1: 0.62, at5: 0.87 },
  tuning: { tasks: () => tasks.filter((t) => !t.heldOut), at1: 0.74, at5: 0.95 },
};

describe('the tool-search benchmark', () => {
  it('has at least 120 distinct tasks, about a third held out', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(120);
    expect(new Set(tasks.map((t) => t.task.toLowerCase())).size).toBe(tasks.length);
    const held = tasks.filter((t) => t.heldOut).length;
    expect(held / tasks.length).toBeGreaterThan(0.3);
    expect(held / tasks.length).toBeLessThan(0.37);
  });

  it('names only tools the catalog has, at least one per task', () => {
    const known = new Set(tools.map((t) => t.name));
    expect(known.size).toBeGreaterThan(350);
    for (const t of tasks) {
      expect(t.tools.length, t.task).toBeGreaterThan(0);
      expect(
        t.tools.filter((n) => !known.has(n)),
        t.task,
      ).toEqual([]);
    }
  });
});

describe.each(Object.entries(FLOORS))('recall on the %s tasks', (_name, floor) => {
  const measured = recall(index, floor.tasks());
  const misses = measured.misses.map((m) => `${m.task} -> ${m.got.join(', ')}`).join('\n');

  it(`stays at or above ${floor.at5} at 5`, () => {
    expect(measured.recall[5], misses).toBeGreaterThanOrEqual(floor.at5);
  });

  it(`stays at or above ${floor.at1} at 1`, () => {
    expect(measured.recall[1]).toBeGreaterThanOrEqual(floor.at1);
  });
});
