// src/proxy/pinning/: tool pinning: each server's tool definitions as first seen, and the drifts from them.
/**
 * A tool's definition as it is pinned: the fields that tell an agent what the tool is and how
 * to call it (name, title, description, inputSchema, outputSchema, annotations), as canonical
 * JSON (object keys sorted at every level, no spaces), and its SHA-256. `_meta`, `icons` and
 * other fields are not part of it: they change no agent's reading of the tool.
 */
import { createHash } from 'node:crypto';

/** The pinned fields, in the order a diff shows them. */
export const PINNED_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;
export type PinnedField = (typeof PINNED_FIELDS)[number];
export type ToolDefinition = Partial<Record<PinnedField, unknown>>;

/** How deep a definition may nest; a deeper one cannot be pinned (and is withheld under `block`). */
export const MAX_DEFINITION_DEPTH = 64;

/** The pinned fields of `tool` that it has. */
export function definitionOf(tool: Record<string, unknown>): ToolDefinition {
  const def: ToolDefinition = {};
  for (const f of PINNED_FIELDS) if (tool[f] !== undefined) def[f] = tool[f];
  return def;
}

/** `value` as JSON with every object's keys sorted; throws past {@link MAX_DEFINITION_DEPTH} levels. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_DEFINITION_DEPTH) throw new RangeError(`nests more than ${MAX_DEFINITION_DEPTH} levels deep`);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null, depth + 1)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    const parts: string[] = [];
    for (const k of keys) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) parts.push(`${JSON.stringify(k)}:${canonicalJson(v, depth + 1)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The hash of a definition without its name: what a renamed tool shares with its pin. */
export function bodyHash(def: ToolDefinition): string {
  const { name: _name, ...body } = def;
  return sha256(canonicalJson(body));
}

/** The pinned fields in which `a` and `b` differ. */
export function changedFields(a: ToolDefinition, b: ToolDefinition): PinnedField[] {
  return PINNED_FIELDS.filter((f) => canonicalJson(a[f] ?? null) !== canonicalJson(b[f] ?? null));
}
