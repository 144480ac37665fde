// The consent's command line is words a POSIX shell reads back to exactly what runs: each word,
// however odd (quotes, backslashes, `$`, globs, a line break, an escape sequence, a right-to-left
// override, a zero-width or non-breaking space, an emoji), given to a real bash as one line,
// comes out byte for byte; and no character that does not show as itself is left raw.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine, shellWord } from '../../src/shared/shellWords.js';

const WORDS = [
  'plain-word@1.0.0',
  '',
  'two words',
  "it's",
  'back\\slash',
  '$HOME ${PATH} `id` $(id)',
  '*.txt {a,b} ~',
  'line\nbreak',
  'tab\tcr\r',
  'esc\x1b]52;c;aGk=\x07',
  'txt.\u202Eexe',
  'zero\u200Bwidth',
  'no\u00A0break',
  'isolate\u2066x\u2069',
  "mixed'\\\n\u202E",
  'emoji 🙂',
];
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u00a0\u2000-\u200a\u202f\u205f\u3000]/u;

describe('shell words', () => {
  it('read back by bash to exactly each word', () => {
    const line = commandLine('printf', ['%s\\0', ...WORDS]);
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', line], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\0').slice(0, -1)).toEqual(WORDS);
  });

  it('show no character that does not show as itself', () => {
    for (const w of WORDS) expect(shellWord(w)).not.toMatch(HIDDEN);
    expect(shellWord('txt.\u202Eexe')).toBe("$'txt.\\u202eexe'");
    expect(shellWord('a\nb')).toBe("$'a\\nb'");
    expect(shellWord('--port=8080')).toBe('--port=8080');
  });
});
