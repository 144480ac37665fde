/**
 * How tool search reads text: a tool's fields and a request become terms, the lower-case
 * word stems both sides share. Identifiers are split at `_`, `-`, `.` and camelCase; stop
 * words go; a light stemmer takes plurals, `-ing`, `-ed` and common derivational endings
 * off. A request also has its URLs and file names said as what they are, its words that the
 * tools write in two (or two words they write as one) rejoined to their form, and its
 * synonyms (searchSynonyms.ts) looked up. A request is read up to bounds (its first
 * characters, of those its first words, and each word's first characters), so that what a
 * search costs does not grow with what a client sends.
 */
import { SYNONYMS } from './searchSynonyms.js';

/** Words that say nothing about which tool is meant, in a request or in a description. */
const STOP_WORDS = new Set(
  (
    'a an the and or but if then else of to in on at by for from with without into onto over under about as ' +
    'is are was were be been being am do does did done has have had having it its this that these those there ' +
    'here i me my mine we us our you your yours he she him her they them their what which who whom whose when ' +
    'where why how can could would should will shall may might must please just also so very too any some all ' +
    'each every no not only own same such than other another again now up down out off via per etc ' +
    're ve ll don doesn didn isn aren wasn won shouldn couldn wouldn ' +
    'let want need like tell help try thing something stuff really actually maybe ok okay hey thanks ' +
    'tool tools mcp'
  ).split(' '),
);

/** Words that end like a plural and are not one. */
const NOT_PLURAL = new Set(['news', 'series', 'species', 'alias', 'canvas', 'lens', 'always', 'perhaps']);

/** Derivational endings and what is left of them, longest first: `deployment` → deploy. */
const DERIVATIONS: readonly (readonly [string, string])[] = [
  ['ization', ''],
  ['isation', ''],
  ['ational', 'ate'],
  ['ation', 'ate'],
  ['ment', ''],
  ['ness', ''],
  ['izer', ''],
  ['iser', ''],
  ['ize', ''],
  ['ise', ''],
  ['er', ''],
  ['ly', ''],
];

/** Every word, one letter long included, of an identifier or a sentence, lower-cased. */
function allWords(text: string): string[] {
  return text
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}|\p{N})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
}

/**
 * The words of an identifier or a sentence, lower-cased, one-letter words dropped:
 * `browser_takeScreenshot` → browser, take, screenshot; `parseHTMLPage` → parse, html, page.
 */
export function words(text: string): string[] {
  return allWords(text).filter((w) => w.length > 1);
}

/**
 * The term a word is indexed and searched under, or null for a stop word: `files` → file,
 * `creating`/`created`/`create` → creat, `deployment` → deploy. Words of three letters or
 * fewer, and words with a digit, are kept as they are.
 */
export function term(word: string): string | null {
  let t = TERM_CACHE.get(word);
  if (t === undefined) {
    if (TERM_CACHE.size >= MAX_CACHED_TERMS) TERM_CACHE.clear();
    t = stem(word);
    TERM_CACHE.set(word, t);
  }
  return t;
}

/** Words seen and their terms: a tool list repeats a few thousand words many times. */
const TERM_CACHE = new Map<string, string | null>();
const MAX_CACHED_TERMS = 50_000;

function stem(word: string): string | null {
  if (STOP_WORDS.has(word)) return null;
  if (word.length <= 3 || /\d/.test(word) || NOT_PLURAL.has(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  else if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  const d = DERIVATIONS.find(([suffix]) => w.endsWith(suffix) && w.length - suffix.length >= 3);
  if (d) w = w.slice(0, w.length - d[0].length) + d[1];
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** `runn` → run, `stopp` → stop: the doubled consonant of an inflected short verb. */
function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

/** The terms of a text, in order, repeats kept (they count as term frequency). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    const t = term(w);
    if (t) out.push(t);
  }
  return out;
}

/** Each term of a synonym group to the other terms of every group it is in. */
const SYNONYM_OF = new Map<string, string[]>();
for (const group of SYNONYMS) {
  const forms = [...new Set(group.map(term).filter((t): t is string => t !== null))];
  for (const t of forms) {
    const others = new Set([...(SYNONYM_OF.get(t) ?? []), ...forms.filter((o) => o !== t)]);
    SYNONYM_OF.set(t, [...others]);
  }
}

/** The other terms that mean what `t` means (none for most terms). */
export function synonymsOf(t: string): readonly string[] {
  return SYNONYM_OF.get(t) ?? [];
}

const FILE_EXTENSIONS =
  'txt md markdown json jsonc yaml yml toml ini csv tsv xml html htm css js mjs cjs ts tsx jsx py rb go rs java kt ' +
  'c h cpp cs php sh ps1 sql log pdf png jpg jpeg gif svg webp mp3 mp4 wav zip gz tar';
// A name starts where a run of name characters starts (not at every `\b` inside `a-b-c`), so each run is read once.
const FILE_NAME = new RegExp(`(?<![\\w-])([\\w-]+)\\.(${FILE_EXTENSIONS.split(' ').join('|')})\\b`, 'gi');
const URL_TEXT = /\bhttps?:\/\/\S+/gi;

/**
 * A request with the things it names said as what they are: a URL as `url` (its host's
 * words would rank tools by them), a file name with the word `file` (`config.yaml` →
 * config file yaml).
 */
function plainRequest(query: string): string {
  return query
    .replace(URL_TEXT, ' url ')
    .replace(FILE_NAME, (_m, base: string, ext: string) => ` ${base} file ${ext} `);
}

/**
 * A word the tools never use, as the two words they do use that it is made of
 * (`flowchart` → flow chart); any other word as it is.
 */
function splitCompound(t: string, vocabulary: ReadonlySet<string>): string[] {
  if (vocabulary.has(t) || t.length < 6) return [t];
  let best: [string, string] | undefined;
  let bestShorter = 0;
  for (let i = 3; i <= t.length - 3; i++) {
    // Stemmed without the cache: the halves of a request's word are no words of a tool list.
    const a = stem(t.slice(0, i));
    const b = stem(t.slice(i));
    const shorter = Math.min(i, t.length - i);
    if (a && b && vocabulary.has(a) && vocabulary.has(b) && shorter > bestShorter) {
      best = [a, b];
      bestShorter = shorter;
    }
  }
  return best ?? [t];
}

/**
 * Runs of two or three words of a request that the tools, or the synonyms, write as one
 * word (`who am i` → whoami, `key vault` → keyvault, `signed in` → signin), stop words
 * included.
 */
function joinedWords(ws: readonly string[], vocabulary: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < ws.length; i++) {
    for (let n = 2; n <= 3 && i + n <= ws.length; n++) {
      const run = ws.slice(i, i + n);
      // As written, and with the first word's ending off.
      for (const w of [run.join(''), (term(run[0]!) ?? run[0]!) + run.slice(1).join('')]) {
        const t = term(w);
        if (t && (vocabulary.has(t) || SYNONYM_OF.has(t))) out.push(t);
      }
    }
  }
  return out;
}

/** A request's characters past this many are not read: a request is a sentence or two. */
export const MAX_REQUEST_CHARS = 1000;
/** A request's words past this many times the terms searched are not read. */
const WORDS_PER_TERM = 4;
/**
 * A word's characters past this many are not read: more than a request means by one word (the
 * longest word of the 22 servers' tool lists, tests/fixtures/toolCatalog, that is no id is
 * `azureterraformbestpractices`, 27 letters). A tool's longer word is still found by its first
 * characters (search by prefix).
 */
export const MAX_WORD_CHARS = 32;

/** The first `n` UTF-16 units of `text`, without half of a surrogate pair at the end. */
function head(text: string, n: number): string {
  if (text.length <= n) return text;
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

/**
 * The distinct terms of a request, at most `max`, given the terms the indexed tools use; read
 * from the request's first {@link MAX_REQUEST_CHARS} characters and, of those, its first
 * `max * 4` words, each cut to its first {@link MAX_WORD_CHARS} characters. Time and memory
 * stay within those bounds whatever the length of the request.
 */
export function requestTerms(query: string, vocabulary: ReadonlySet<string>, max: number): string[] {
  const ws = allWords(plainRequest(head(query, MAX_REQUEST_CHARS)))
    .slice(0, max * WORDS_PER_TERM)
    .map((w) => head(w, MAX_WORD_CHARS));
  const own = ws.filter((w) => w.length > 1).map(term);
  const all = [...own.flatMap((t) => (t ? splitCompound(t, vocabulary) : [])), ...joinedWords(ws, vocabulary)];
  return [...new Set(all)].slice(0, max);
}
