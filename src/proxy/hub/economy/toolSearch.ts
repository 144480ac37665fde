/**
 * Ranks a scope's tools for a natural-language request, with minisearch's BM25+ over each
 * tool's fields (decisions/0031-tool-search.md): its name, title, the first sentence of its
 * description (what the tool is) and the whole description, its parameters' names and what
 * they say of themselves, and its server's id and summary. Text becomes terms as
 * searchTerms.ts says.
 *
 * Each term of the request is searched alone, with its synonyms at half weight, and scores a
 * tool by its best match. A tool's score is the sum of its terms' scores, each saturated
 * (x / (x + TERM_SATURATION)) so that one rare word in a name cannot outweigh the rest of
 * the request, times the square root of how many of the request's terms it meets: every
 * tool that meets any term is a candidate (OR), and those that meet more come first.
 *
 * Built once per tool list; a lazily loaded bundle file, so a start that never searches
 * never reads it.
 */
import MiniSearch, { type SearchOptions } from 'minisearch';
import type { SearchableTool, ToolIndex } from './searchTypes.js';
import { requestTerms, synonymsOf, terms } from './searchTerms.js';

interface Doc {
  id: number;
  name: string;
  title: string;
  lead: string;
  description: string;
  params: string;
  paramText: string;
  server: string;
}

const FIELDS = ['name', 'title', 'lead', 'description', 'params', 'paramText', 'server'] as const;

/** Field weights: what a tool is called and says it is first, how to use it and its server after. */
const BOOST: Record<(typeof FIELDS)[number], number> = {
  name: 3,
  title: 2,
  lead: 2.5,
  description: 1,
  params: 0.5,
  paramText: 0.3,
  server: 1,
};

/** A synonym's match counts this much of the word's own. */
const SYNONYM_WEIGHT = 0.5;
/** The BM25 score at which one term gives half of all it can give. */
const TERM_SATURATION = 30;
/** The exponent of the number of a request's terms a tool meets. */
const COORDINATION = 0.5;
/** A request's terms past this many are not searched (a request is a sentence, not a document). */
const MAX_REQUEST_TERMS = 32;

/** The most typos forgiven in one term: the cost of a fuzzy search grows with it (and with the term's length). */
const MAX_TYPOS = 2;

/**
 * Prefix matches for terms of four letters or more (`config` finds `configuration`), a typo
 * forgiven per five letters in terms of six or more, at most {@link MAX_TYPOS}; minisearch
 * weighs both below an exact match. (A request's terms are at most 32 letters: searchTerms.ts.)
 */
const TERM_SEARCH: SearchOptions = {
  tokenize: (t) => [t],
  processTerm: (t) => t,
  prefix: (t) => t.length > 3,
  fuzzy: (t) => (t.length > 5 ? Math.min(MAX_TYPOS, Math.round(t.length * 0.2)) : false),
};

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function properties(schema: unknown): Record<string, unknown> {
  const props = (schema as { properties?: unknown } | undefined)?.properties;
  return props && typeof props === 'object' ? (props as Record<string, unknown>) : {};
}

/** What the parameters say of themselves: their descriptions and the string values they take. */
function paramText(schema: unknown): string {
  const out: string[] = [];
  for (const p of Object.values(properties(schema))) {
    const prop = (p ?? {}) as { description?: unknown; enum?: unknown };
    out.push(text(prop.description));
    if (Array.isArray(prop.enum)) out.push(...prop.enum.filter((v): v is string => typeof v === 'string'));
  }
  return out.join(' ');
}

/** The first sentence of a description: what the tool is, before how to use it. */
function leadSentence(description: string): string {
  const t = description.trim();
  const end = t.search(/[.!?](\s|$)|\n\s*\n/);
  return end < 0 ? t : t.slice(0, end + 1);
}

function toDoc(t: SearchableTool, id: number): Doc {
  const description = text(t.tool.description);
  return {
    id,
    name: t.name,
    title: text(t.tool.title) || text((t.tool.annotations as { title?: unknown } | undefined)?.title),
    lead: leadSentence(description),
    description,
    params: Object.keys(properties(t.tool.inputSchema)).join(' '),
    paramText: paramText(t.tool.inputSchema),
    server: `${t.serverId} ${t.serverSummary ?? ''}`,
  };
}

export function buildToolIndex(tools: readonly SearchableTool[]): ToolIndex {
  const vocabulary = new Set<string>();
  const index = new MiniSearch<Doc>({
    fields: [...FIELDS],
    tokenize: (fieldText) => {
      const out = terms(fieldText);
      for (const t of out) vocabulary.add(t);
      return out;
    },
    processTerm: (t) => t,
    searchOptions: { ...TERM_SEARCH, boost: BOOST },
  });
  index.addAll(tools.map(toDoc));

  /** Each tool that matches `t` or a synonym of it, with its best weighted score. */
  const termScores = (t: string): Map<number, number> => {
    const best = new Map<number, number>();
    const forms: [string, number][] = [[t, 1], ...synonymsOf(t).map((s): [string, number] => [s, SYNONYM_WEIGHT])];
    for (const [form, weight] of forms) {
      for (const hit of index.search(form)) {
        const id = hit.id as number;
        best.set(id, Math.max(best.get(id) ?? 0, weight * hit.score));
      }
    }
    return best;
  };

  return {
    search(query, limit) {
      if (!(limit >= 1)) return [];
      const total = new Map<number, { sum: number; met: number }>();
      for (const t of requestTerms(query, vocabulary, MAX_REQUEST_TERMS)) {
        for (const [id, score] of termScores(t)) {
          const acc = total.get(id) ?? { sum: 0, met: 0 };
          acc.sum += score / (score + TERM_SATURATION);
          acc.met += 1;
          total.set(id, acc);
        }
      }
      return [...total]
        .map(([id, { sum, met }]) => ({ id, score: sum * met ** COORDINATION }))
        .sort((a, b) => b.score - a.score || a.id - b.id)
        .slice(0, limit)
        .map((h) => tools[h.id]!);
    },
  };
}
