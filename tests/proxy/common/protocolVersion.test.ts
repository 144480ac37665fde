import { describe, expect, it } from 'vitest';
import * as sdk from '@modelcontextprotocol/sdk/types.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../../../src/proxy/common/protocolVersion.js';

describe('protocol versions', () => {
  it('are the installed SDK’s own (update src/proxy/common/protocolVersion.ts with the SDK)', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe(sdk.LATEST_PROTOCOL_VERSION);
    expect([...SUPPORTED_PROTOCOL_VERSIONS]).toEqual([...sdk.SUPPORTED_PROTOCOL_VERSIONS]);
  });
});
