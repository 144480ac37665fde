/**
 * The token weight of what an agent is handed (tool definitions), estimated from its JSON
 * size: tokens ≈ UTF-8 bytes / BYTES_PER_TOKEN. No tokenizer at run time (docs/decisions/0034).
 *
 * BYTES_PER_TOKEN is calibrated against the o200k tokenizer on the captured tool lists of 22
 * real servers (`node bench/toolTokens.mjs`; docs/BENCHMARKS.md, "Tool economy: token weight"):
 * they measure 4.48 bytes per token over the merged list (4.10 to 5.17 per server). 4.3 puts
 * the estimate a little above the real count (+4% in total), so a token budget trips a little
 * early rather than late.
 */
export const BYTES_PER_TOKEN = 4.3;

/** Estimated tokens of `value` as JSON. */
export function estimateTokens(value: unknown): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') / BYTES_PER_TOKEN);
}
