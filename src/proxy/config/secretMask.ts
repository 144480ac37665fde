/**
 * The process's one mask for what it emits: every configured secret value (env, header and
 * bearer values, credentials inside urls) becomes `***` wherever it appears, in its raw,
 * JSON-escaped and URL-encoded spellings, and every url in the text loses its userinfo and
 * query values. The logger applies it to each line, the status to errors and stderr lines.
 */
import { redactUrlsInText } from './redact.js';

const MASK = '***';

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class SecretMask {
  private readonly values = new Set<string>();
  private re?: RegExp;

  /** Adds secret values (empty strings are ignored). */
  add(secrets: Iterable<string>): void {
    let changed = false;
    for (const s of secrets) {
      if (!s) continue;
      for (const v of [s, JSON.stringify(s).slice(1, -1), encodeURIComponent(s)]) {
        if (v && !this.values.has(v)) {
          this.values.add(v);
          changed = true;
        }
      }
    }
    if (!changed) return;
    // Longest first, so that a secret containing another is masked whole.
    const alternatives = [...this.values].sort((a, b) => b.length - a.length).map(escapeRe);
    this.re = new RegExp(alternatives.join('|'), 'g');
  }

  get size(): number {
    return this.values.size;
  }

  /** `text` with every secret masked and every url redacted. */
  mask(text: string): string {
    const out = this.maskSecrets(text);
    return out.includes('://') ? redactUrlsInText(out) : out;
  }

  /** `text` with every secret masked, its urls as they are. */
  maskSecrets(text: string): string {
    if (!this.re) return text;
    this.re.lastIndex = 0;
    return text.replace(this.re, MASK);
  }
}
