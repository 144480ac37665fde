/**
 * The token weight of what an agent is handed (tool definitions), estimated from its JSON
 * size: tokens ≈ UTF-8 bytes / BYTES_PER_TOKEN, calibrated against the o200k tokenizer on
 * the captured tool lists of real servers (docs/BENCHMARKS.md, "Tool economy").
 */
export const BYTES_PER_TOKEN = 4;

/** Estimated tokens of `value` as JSON. */
export function estimateTokens(value: unknown): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') / BYTES_PER_TOKEN);
}
