// Tool search over a small, hand-made scope: how names and sentences are split into words,
// the limit, queries with no known word, that a tool's own name finds it first, and what of
// a request is read (its first characters, words, and each word's first characters).
import { describe, expect, it } from 'vitest';
import type { SearchableTool } from '../../../../src/proxy/hub/economy/searchTypes.js';
import {
  MAX_REQUEST_CHARS,
  MAX_WORD_CHARS,
  requestTerms,
  term,
  words,
} from '../../../../src/proxy/hub/economy/searchTerms.js';
import { buildToolIndex } from '../../../../src/proxy/hub/economy/toolSearch.js';

function tool(serverId: string, name: string, description: string, params: string[] = []): SearchableTool {
  const properties = Object.fromEntries(params.map((p) => [p, { type: 'string' }]));
  const exposed = `${serverId}__${name}`;
  return {
    name: exposed,
    serverId,
    tool: { name: exposed, description, inputSchema: { type: 'object', properties } },
  };
}

const SCOPE: SearchableTool[] = [
  tool('browser', 'browser_take_screenshot', 'Take a screenshot of the current page', ['fullPage', 'filename']),
  tool('browser', 'browser_navigate', 'Navigate to a URL', ['url']),
  tool('browser', 'browser_click', 'Perform click on a web page element', ['element', 'ref']),
  tool('fs', 'read_text_file', 'Read the complete contents of a file as text', ['path', 'head', 'tail']),
  tool('fs', 'write_file', 'Create a new file or overwrite an existing file with new content', ['path', 'content']),
  tool('fs', 'list_directory', 'Get a detailed listing of all files and directories in a specified path', ['path']),
  tool('issues', 'createIssue', 'Open a new issue in a repository', ['owner', 'repo', 'title', 'body']),
  tool('issues', 'listPullRequests', 'List pull requests of a repository', ['owner', 'repo', 'state']),
  tool('kube', 'kubectl_logs', 'Get logs from pods, deployments or jobs', ['resourceType', 'name', 'namespace']),
  tool('news', 'news_search', 'Search recent news articles', ['query']),
  tool('account', 'whoami', 'The signed-in user', []),
  tool('chart', 'generate_flow_diagram', 'Draw the steps of a process', ['data']),
  tool('chart', 'generate_pie_chart', 'Show the parts of a whole', ['data']),
];

const names = (hits: SearchableTool[]) => hits.map((t) => t.name);

describe('words', () => {
  it('splits identifiers at underscores, dashes, dots and camelCase', () => {
    expect(words('browser_takeScreenshot')).toEqual(['browser', 'take', 'screenshot']);
    expect(words('get-file-info')).toEqual(['get', 'file', 'info']);
    expect(words('listPullRequests')).toEqual(['list', 'pull', 'requests']);
    expect(words('fs__read_text_file')).toEqual(['fs', 'read', 'text', 'file']);
    expect(words('mongodb.collection-schema')).toEqual(['mongodb', 'collection', 'schema']);
  });

  it('keeps an acronym in one piece and splits where the next word starts', () => {
    expect(words('parseHTMLPage')).toEqual(['parse', 'html', 'page']);
    expect(words('getURL')).toEqual(['get', 'url']);
  });

  it('lower-cases sentences and drops punctuation and one-letter words', () => {
    expect(words('Take a screenshot, of the page!')).toEqual(['take', 'screenshot', 'of', 'the', 'page']);
  });

  it('keeps digits with their word, and words in other scripts', () => {
    expect(words('base64 encode h264')).toEqual(['base64', 'encode', 'h264']);
    expect(words('Überprüfe die Datei')).toEqual(['überprüfe', 'die', 'datei']);
  });

  it('gives no words for blank text', () => {
    expect(words('')).toEqual([]);
    expect(words('  -- __ ')).toEqual([]);
  });
});

describe('term', () => {
  it('takes plurals and verb endings off, so the forms of a word meet', () => {
    expect(term('files')).toBe(term('file'));
    expect(term('directories')).toBe(term('directory'));
    expect(term('searches')).toBe(term('search'));
    expect(term('creating')).toBe(term('create'));
    expect(term('created')).toBe(term('create'));
    expect(term('running')).toBe(term('run'));
    expect(term('deployment')).toBe(term('deploy'));
    expect(term('aggregation')).toBe(term('aggregate'));
  });

  it('gives no term for a stop word, and keeps short words and words with digits', () => {
    expect(term('the')).toBeNull();
    expect(term('please')).toBeNull();
    expect(term('pod')).toBe('pod');
    expect(term('h264')).toBe('h264');
    expect(term('news')).not.toBe(term('new'));
  });
});

describe('buildToolIndex', () => {
  const index = buildToolIndex(SCOPE);

  it('finds a tool first by its own name, exposed or bare', () => {
    for (const t of SCOPE) {
      expect(names(index.search(t.name, 3))[0]).toBe(t.name);
      const bare = t.name.slice(t.name.indexOf('__') + 2);
      expect(names(index.search(bare, 3))[0]).toBe(t.name);
    }
  });

  it('finds a tool by what it does, in other words than its name', () => {
    expect(names(index.search('capture an image of the web page', 1))).toEqual(['browser__browser_take_screenshot']);
    expect(names(index.search('what files are in this folder', 1))).toEqual(['fs__list_directory']);
    expect(names(index.search('open a url in the browser', 1))).toEqual(['browser__browser_navigate']);
  });

  it('returns at most `limit` tools, best first', () => {
    const all = index.search('file', 10);
    expect(all.length).toBeGreaterThan(1);
    expect(index.search('file', 1)).toEqual(all.slice(0, 1));
    expect(index.search('file', 2)).toEqual(all.slice(0, 2));
  });

  it('returns nothing for a limit of zero or less', () => {
    expect(index.search('screenshot', 0)).toEqual([]);
    expect(index.search('screenshot', -3)).toEqual([]);
  });

  it('returns nothing for an empty, blank, or unknown query', () => {
    expect(index.search('', 5)).toEqual([]);
    expect(index.search('   ', 5)).toEqual([]);
    expect(index.search('zzqxv wombatqq', 5)).toEqual([]);
  });

  it('returns nothing for a query of only common words', () => {
    expect(index.search('the a of to please can you', 5)).toEqual([]);
  });

  it('takes the query as text, not as search syntax', () => {
    expect(names(index.search('screenshot* OR "page"', 1))).toEqual(['browser__browser_take_screenshot']);
    expect(() => index.search('(((', 5)).not.toThrow();
  });

  it('reads a URL in a request as a URL, not as the words of its host', () => {
    expect(names(index.search('open https://news.example.com/today in the browser', 1))).toEqual([
      'browser__browser_navigate',
    ]);
  });

  it('reads a file name in a request as a file', () => {
    expect(names(index.search('show me notes.md', 1))).toEqual(['fs__read_text_file']);
  });

  it('meets a tool whose name joins words the request writes apart, and the reverse', () => {
    expect(names(index.search('who am I', 1))).toEqual(['account__whoami']);
    expect(names(index.search('draw a flowchart', 1))).toEqual(['chart__generate_flow_diagram']);
  });

  it('finds a tool by a synonym of its words', () => {
    expect(names(index.search('remove the kube pod logs', 3))).toContain('kube__kubectl_logs');
    expect(names(index.search('what is inside this folder', 1))).toEqual(['fs__list_directory']);
  });

  it('answers a very long request', () => {
    const long = Array.from({ length: 5000 }, (_, i) => `word${i} screenshot`).join(' ');
    expect(names(index.search(long, 1))).toEqual(['browser__browser_take_screenshot']);
  });

  it('ranks by the parameter names and the server too', () => {
    expect(names(index.search('namespace', 1))).toEqual(['kube__kubectl_logs']);
    expect(names(index.search('kube logs', 1))).toEqual(['kube__kubectl_logs']);
  });

  it('indexes an empty scope, and tools without description or schema', () => {
    expect(buildToolIndex([]).search('file', 5)).toEqual([]);
    const bare: SearchableTool = { name: 'x__ping', serverId: 'x', tool: { name: 'x__ping' } };
    expect(names(buildToolIndex([bare]).search('ping', 5))).toEqual(['x__ping']);
  });
});

describe('what of a request is read', () => {
  const index = buildToolIndex(SCOPE);
  const vocabulary = new Set(['screenshot', term('take')!, term('navigate')!]);

  it('cuts each word to its first characters, and so its compound split and its typos', () => {
    expect(requestTerms('x'.repeat(100), vocabulary, 32)).toEqual(['x'.repeat(32)]);
    expect(requestTerms(`take ${'ab'.repeat(50)} screenshot`, vocabulary, 32)).toEqual([
      term('take'),
      'ab'.repeat(16),
      'screenshot',
    ]);
    // A pair of UTF-16 units is not cut in half.
    expect(requestTerms(`${'x'.repeat(31)}𠀀𠀀`, vocabulary, 32)).toEqual(['x'.repeat(31)]);
    expect(MAX_WORD_CHARS).toBe(32);
  });

  it('reads the first characters of a request, and of those its first words', () => {
    const past = `take ${'z'.repeat(2000)} screenshot`;
    expect(requestTerms(past, vocabulary, 32)).toEqual([term('take'), 'z'.repeat(32)]);
    const many = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    expect(requestTerms(many, vocabulary, 8)).toEqual(Array.from({ length: 8 }, (_, i) => `w${i}`));
    expect(requestTerms(`${'a '.repeat(100)}screenshot`, vocabulary, 8)).toEqual([]);
    expect(MAX_REQUEST_CHARS).toBe(1000);
  });

  it('ranks a request by its words that are read, whatever follows them', () => {
    const junk = 'y'.repeat(5000);
    expect(names(index.search(`take a screenshot ${junk}`, 1))).toEqual(['browser__browser_take_screenshot']);
    expect(names(index.search(`what files are in this folder ${'and more '.repeat(20_000)}`, 1))).toEqual([
      'fs__list_directory',
    ]);
    expect(names(index.search(`open a url in the browser ${'a-'.repeat(2000)}`, 1))).toEqual([
      'browser__browser_navigate',
    ]);
    expect(index.search(junk, 5)).toEqual([]);
  });

  it("finds a tool's word longer than a request's word by the request word's first characters", () => {
    const long: SearchableTool = tool('x', 'superlongidentifierthatgoesonandonforever_tool', 'A tool.');
    const found = buildToolIndex([...SCOPE, long]).search('superlongidentifierthatgoesonandonforever', 1);
    expect(names(found)).toEqual(['x__superlongidentifierthatgoesonandonforever_tool']);
  });
});
