// The run-time token estimate against the o200k tokenizer on the captured tool lists of 22
// real servers: close over the whole list (and never below it, so a budget trips early, not
// late), and not far off for any one server.
import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

import { BYTES_PER_TOKEN, estimateTokens } from '../../../../src/proxy/hub/economy/tokenEstimate.js';
import { CATALOG_IDS, catalogTools, loadCatalog } from '../../../helpers/catalogSet.js';

const o200k = (value: unknown): number => countTokens(JSON.stringify(value));

describe('estimateTokens', () => {
  it('is the UTF-8 byte length of the JSON over BYTES_PER_TOKEN, rounded up', () => {
    expect(estimateTokens(undefined)).toBe(0);
    const value = { name: 'héllo 漢字' }; // é is 2 bytes, 漢 and 字 3 each: bytes count, not characters
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    expect(bytes).toBe(JSON.stringify(value).length + 1 + 2 + 2);
    expect(estimateTokens(value)).toBe(Math.ceil(bytes / BYTES_PER_TOKEN));
  });

  it('is within 10% of o200k over the merged catalog, and not below it', () => {
    const merged = catalogTools().map(({ tool }) => tool);
    expect(merged.length).toBeGreaterThan(300);
    const real = o200k(merged);
    const estimate = estimateTokens(merged);
    expect(estimate / real).toBeGreaterThanOrEqual(1);
    expect(estimate / real).toBeLessThanOrEqual(1.1);
  });

  it('is within 25% of o200k for the tool list of each captured server', () => {
    const off = CATALOG_IDS.map((id) => {
      const tools = loadCatalog(id).tools;
      return { id, ratio: estimateTokens(tools) / o200k(tools) };
    }).filter(({ ratio }) => ratio < 0.75 || ratio > 1.25);
    expect(off).toEqual([]);
  });
});
