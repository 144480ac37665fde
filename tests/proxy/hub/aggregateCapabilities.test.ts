// The aggregate initialize's capabilities (aggregateCapabilities.ts): the union of what the
// servers in scope declared (with every server ready, what they show together direct), a server
// not ready counting as what the proxy can answer or route whatever it has, never as tasks.
import { describe, expect, it } from 'vitest';
import { aggregateCapabilities } from '../../../src/proxy/hub/aggregateCapabilities.js';

const ready = (capabilities: Record<string, unknown>) => ({ isReady: true, capabilities });

describe('aggregateCapabilities', () => {
  it('declares nothing with no server, and only the kinds the ready servers have', () => {
    expect(aggregateCapabilities([])).toEqual({});
    expect(aggregateCapabilities([ready({ tools: {} })])).toEqual({ tools: { listChanged: true } });
  });

  it('is the union of the ready servers, not a fixed set', () => {
    expect(aggregateCapabilities([ready({ tools: {} }), ready({ logging: {} })])).toEqual({
      tools: { listChanged: true },
      logging: {},
    });
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

  it('a server not ready counts as tools, prompts, resources with subscribe, logging and completions, never tasks nor experimental keys', () => {
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
