// The aggregate initialize's capabilities (aggregateCapabilities.ts): the lists the proxy answers
// itself always, the union of what the servers in scope declared for the rest, a server not
// ready counting as what the proxy can answer or route whatever it has, never as tasks.
import { describe, expect, it } from 'vitest';
import { aggregateCapabilities } from '../../../src/proxy/hub/aggregateCapabilities.js';

const ready = (capabilities: Record<string, unknown>) => ({ isReady: true, capabilities });

describe('aggregateCapabilities', () => {
  const LISTS = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } };

  it('always has the lists, with listChanged, even with no server', () => {
    expect(aggregateCapabilities([])).toEqual(LISTS);
    expect(aggregateCapabilities([ready({ tools: {} })])).toEqual(LISTS);
  });

  it('is the union of the ready servers beyond the lists, not a fixed set', () => {
    expect(aggregateCapabilities([ready({ tools: {} }), ready({ logging: {} })])).toEqual({ ...LISTS, logging: {} });
    expect(
      aggregateCapabilities([
        ready({ tools: {}, resources: {}, experimental: { a: {} } }),
        ready({ prompts: {}, resources: { subscribe: true }, logging: {}, experimental: { b: { x: 1 } } }),
        ready({ completions: {}, tasks: { list: {}, requests: { tools: { call: {} } } } }),
        ready({ tasks: { cancel: {} } }),
      ]),
    ).toEqual({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      logging: {},
      completions: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      experimental: { a: {}, b: { x: 1 } },
    });
  });

  it('a subscribe-capable server is not undone by a later one without it', () => {
    expect(
      aggregateCapabilities([ready({ resources: { subscribe: true } }), ready({ resources: {} })]).resources,
    ).toEqual({
      subscribe: true,
      listChanged: true,
    });
  });

  it('a server not ready counts as resources with subscribe, logging and completions, never tasks nor experimental keys', () => {
    expect(
      aggregateCapabilities([{ isReady: false, capabilities: { tasks: { list: {} }, experimental: { a: {} } } }]),
    ).toEqual({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      logging: {},
      completions: {},
    });
  });
});
