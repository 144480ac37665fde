// The 2026-07-28 `Mcp-Param-*` check of the bridge's modern endpoint (SEP-2243, paramHeaders.ts),
// case by case; tests/proxy/conformance2026.test.ts runs the suite's own cases through the bridge.
import { describe, expect, it } from 'vitest';
import { paramHeaderMismatch, paramHeaderValue } from '../../src/proxy/bridge/paramHeaders.js';

const schema = {
  type: 'object',
  properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, priority: { type: 'integer', 'x-mcp-header': 'Priority' }, query: { type: 'string' } },
};
const b64 = (s: string) => `=?base64?${Buffer.from(s).toString('base64')}?=`;

describe('Mcp-Param-* headers', () => {
  it('reads literal values and strictly padded Base64', () => {
    expect(paramHeaderValue('us-east1')).toBe('us-east1');
    expect(paramHeaderValue(b64('Héllo'))).toBe('Héllo');
    expect(paramHeaderValue('=?base64?SGVsbG8?=')).toBeUndefined(); // padding missing
    expect(paramHeaderValue('=?base64?SGVs!!!bG8=?=')).toBeUndefined();
    expect(paramHeaderValue('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8='); // no closing ?=: literal
  });

  it('accepts headers that match the arguments', () => {
    expect(paramHeaderMismatch({ 'mcp-param-region': 'us', 'mcp-param-priority': '3' }, schema, { region: 'us', priority: 3, query: 'x' })).toBeUndefined();
    expect(paramHeaderMismatch({ 'mcp-param-region': b64(' padded ') }, schema, { region: ' padded ' })).toBeUndefined();
    expect(paramHeaderMismatch({}, schema, { query: 'only unannotated' })).toBeUndefined();
    expect(paramHeaderMismatch({}, { type: 'object' }, { region: 'x' })).toBeUndefined();
  });

  it('refuses a missing, malformed or different header', () => {
    expect(paramHeaderMismatch({}, schema, { region: 'us' })).toMatch(/Mcp-Param-Region header is required/);
    expect(paramHeaderMismatch({ 'mcp-param-region': '=?base64?SGVsbG8?=' }, schema, { region: 'Hello' })).toMatch(/invalid Base64/);
    expect(paramHeaderMismatch({ 'mcp-param-region': 'eu' }, schema, { region: 'us' })).toMatch(/does not match/);
    expect(paramHeaderMismatch({ 'mcp-param-priority': '1' }, schema, { region: undefined })).toMatch(/Priority header is set/);
  });
});
