/**
 * `${VAR}` expansion for config strings (command, args, env values, cwd, url, header values,
 * authToken).
 *
 * Syntax, deliberately small and close to docker compose:
 * - `${NAME}` is replaced by the variable's value; an unset variable is reported as missing.
 *   A variable set to the empty string expands to the empty string.
 * - `${NAME:-fallback}` uses `fallback` (literal text up to the first `}`) when `NAME` is
 *   unset or empty, as in POSIX shells.
 * - `$$` is the escape and stands for one literal `$`, so `$${NAME}` yields the text `${NAME}`.
 *   (We chose `$$` over `\${` because a backslash must itself be escaped in JSON, which
 *   makes `"\\${X}"` easy to get wrong.)
 * - Any other `$` is literal: `$HOME` is NOT expanded, so regexes and shell snippets in args
 *   survive unchanged.
 * - Names are `[A-Za-z_][A-Za-z0-9_]*`; anything else inside `${...}` is a syntax error.
 *
 * Messages produced here never quote the input text or a variable's value, only variable
 * names and character positions, because the input may hold secrets.
 */

/** Outcome of expanding one string. */
export interface ExpandResult {
  /** The expanded text. References to missing variables are left verbatim. */
  value: string;
  /** Names of variables referenced without a default that are not set (deduplicated). */
  missing: string[];
  /** Syntax problems (unterminated or malformed references); safe to show. */
  errors: string[];
}

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Expands `${VAR}` / `${VAR:-default}` references in `input` using `env`.
 * Never throws; callers decide whether missing variables are fatal.
 */
export function expandVars(input: string, env: NodeJS.ProcessEnv): ExpandResult {
  // Fast path: most strings have no `$` at all.
  if (!input.includes('$')) return { value: input, missing: [], errors: [] };
  let out = '';
  const missing: string[] = [];
  const errors: string[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i];
    if (ch !== '$') {
      out += ch;
      i++;
      continue;
    }
    const next = input[i + 1];
    if (next === '$') {
      out += '$';
      i += 2;
      continue;
    }
    if (next !== '{') {
      out += '$';
      i++;
      continue;
    }
    const close = input.indexOf('}', i + 2);
    if (close < 0) {
      errors.push(`unterminated "\${" at character ${i + 1}`);
      out += input.slice(i);
      break;
    }
    const body = input.slice(i + 2, close);
    const sep = body.indexOf(':-');
    const name = sep >= 0 ? body.slice(0, sep) : body;
    if (!NAME_RE.test(name)) {
      // The malformed text itself is not quoted: it might be a pasted token.
      errors.push(
        `invalid variable reference at character ${i + 1} ` + '(use ${NAME} or ${NAME:-default}; names are letters, digits and _, not starting with a digit)',
      );
      out += input.slice(i, close + 1);
      i = close + 1;
      continue;
    }
    const value = env[name];
    if (sep >= 0) {
      out += value === undefined || value === '' ? body.slice(sep + 2) : value;
    } else if (value === undefined) {
      if (!missing.includes(name)) missing.push(name);
      out += input.slice(i, close + 1);
    } else {
      out += value;
    }
    i = close + 1;
  }
  return { value: out, missing, errors };
}
