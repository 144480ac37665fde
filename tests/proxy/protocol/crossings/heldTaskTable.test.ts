// The tasks that cross the eras (src/proxy/protocol/crossings/heldTaskTable.ts, protocol/taskShapes.ts): the two task
// shapes mapped both ways, the 2025 capability a 2026 server with the extension gets, the
// unguessable ids, parked server requests released when a task is dropped.
import { describe, expect, it } from 'vitest';
import { HeldTaskTable, MAX_ERA_TASKS } from '../../../../src/proxy/protocol/crossings/heldTaskTable.js';
import { task2025, task2026 } from '../../../../src/proxy/protocol/taskShapes.js';
import { initRecordFromDiscover } from '../../../../src/proxy/protocol/rev2026-07-28/vocabulary.js';
import type { Upstream } from '../../../../src/proxy/upstream/upstream.js';

function fakeUpstream(id: string) {
  const errors: { id: unknown; message: string }[] = [];
  const u = {
    id,
    respondError: (rid: unknown, e: { message: string }) => errors.push({ id: rid, message: e.message }),
  } as unknown as Upstream;
  return { u, errors };
}

describe('task shapes across the eras', () => {
  it('maps a 2025 Task to the extension and back', () => {
    const legacy = {
      taskId: 's1',
      status: 'working',
      statusMessage: 'm',
      createdAt: 'a',
      lastUpdatedAt: 'b',
      ttl: 1000,
      pollInterval: 50,
    };
    const modern = task2026('x1', legacy);
    expect(modern).toEqual({
      taskId: 'x1',
      status: 'working',
      statusMessage: 'm',
      createdAt: 'a',
      lastUpdatedAt: 'b',
      ttlMs: 1000,
      pollIntervalMs: 50,
    });
    expect(task2026('x2', { ...legacy, ttl: null, pollInterval: undefined }).ttlMs).toBeNull();
    const back = task2025('s1', {
      ...modern,
      resultType: 'complete',
      result: { content: [] },
      inputRequests: {},
      _meta: { k: 1 },
    });
    expect(back).toEqual(legacy);
  });

  it('gives a 2026 server with the extension the 2025 tasks capability, and leaves one without alone', () => {
    const withExt = initRecordFromDiscover({
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
    });
    expect((withExt.capabilities as Record<string, unknown>).tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const without = initRecordFromDiscover({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} } });
    expect((without.capabilities as Record<string, unknown>).tasks).toBeUndefined();
  });
});

describe('HeldTaskTable', () => {
  it('mints unguessable ids for translated tasks and prefixes passed-through ones', () => {
    const table = new HeldTaskTable();
    const { u } = fakeUpstream('srv');
    const a = table.addTranslated(u, 'same');
    const b = table.addTranslated(u, 'other');
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a.id).not.toBe(b.id);
    expect(table.get(a.id)).toBe(a);
    expect(table.ofServer(u, 'same')).toBe(a);
    const p = table.addPassed(u, 'abc');
    expect(p.id).toBe('srv__abc');
    expect(table.addPassed(u, 'abc')).toBe(p);
  });

  it('parks server requests under fresh keys, forgets a withdrawn one, and answers the parked ones of a dropped task', () => {
    const table = new HeldTaskTable();
    const { u, errors } = fakeUpstream('srv');
    const first = table.addTranslated(u, 't0');
    expect(table.park(first, 'elicitation/create', { message: 'a' }, 7)).toBe(true);
    expect(table.park(first, 'elicitation/create', { message: 'b' }, 8)).toBe(true);
    expect([...first.inputs.keys()]).toEqual(['input-1', 'input-2']);
    table.withdraw(u, 8);
    expect([...first.inputs.keys()]).toEqual(['input-1']);
    for (let i = 1; i <= MAX_ERA_TASKS; i++) table.addTranslated(u, `t${i}`);
    expect(table.get(first.id)).toBeUndefined();
    expect(errors).toEqual([{ id: 7, message: 'task dropped by the proxy (too many tasks)' }]);
  });
});
