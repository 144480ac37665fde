// The top-level "sandbox" default reaches the `persistent: false` entries an agent's own proxy
// runs (their config travels without the top level), an entry's own value kept; and a changed
// default changes the bridge's signature, so the app reloads the bridge.
import { describe, expect, it } from 'vitest';
import { viewOf } from '../../src/main/config/userConfig.js';

describe("the sandbox default and the agents' session entries", () => {
  it('is copied into each persistent:false entry that has none of its own', () => {
    const view = viewOf({
      sandbox: { network: 'all' },
      mcpServers: {
        a: { command: 'a', persistent: false },
        b: { command: 'b', persistent: false, sandbox: false },
        c: { command: 'c' },
      },
    });
    expect(view.sessionEntries).toEqual({
      a: { command: 'a', persistent: false, sandbox: { network: 'all' } },
      b: { command: 'b', persistent: false, sandbox: false },
    });
    expect(view.bridgeEntries).toEqual({ c: { command: 'c' } });
  });

  it('changes the bridge signature when it changes', () => {
    const servers = { mcpServers: { c: { command: 'c' } } };
    expect(viewOf({ ...servers, sandbox: true }).bridgeSignature).not.toBe(viewOf(servers).bridgeSignature);
  });
});
