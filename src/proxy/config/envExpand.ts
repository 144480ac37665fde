/**
 * `${VAR}` expansion for config strings (command, args, env values, cwd, url, header values,
 * authToken, the strings of `oauth`).
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
 * - Names are `[A-Za-z_][A-Za-z0-9_]*`; anything else inside `${...}` is a syntax error, but for
 *   the variables of other clients' files, read so that their configs load as they are:
 *   - `${env:NAME}` (VS Code, Cursor) is `${NAME}` (`${env:NAME:-fallback}` too);
 *   - `${userHome}`, `${workspaceFolder}`, `${workspaceFolderBasename}`, `${pathSeparator}` and
 *     `${/}` come from {@link ClientVars} unless an environment variable of that name is set;
 *   - `${input:ID}` (a VS Code prompt, which a CLI cannot show) is the environment variable
 *     {@link inputVarName}(ID), `MCP_INPUT_<ID>`; unset, it is reported as unavailable;
 *   - `${config:...}`, `${command:...}` and the like, which only VS Code can fill in, are
 *     reported as unavailable.
 * - `${secret:NAME}` is the value kept under NAME in the secret store (src/proxy/secrets/), as
 *   {@link ClientVars.secret} finds it; without that lookup, or when it finds nothing, the
 *   reference is reported as unavailable, naming the secret (never a value).
 *
 * Messages produced here never quote the input text or a variable's value, only variable
 * names and character positions, because the input may hold secrets.
 */

/** The values of other clients' predefined variables (see the file comment). */
export interface ClientVars {
  /** `${userHome}`. */
  userHome?: string;
  /** `${workspaceFolder}`; its last segment is `${workspaceFolderBasename}`. */
  workspaceFolder?: string;
  /** `${pathSeparator}` and `${/}`; default `/`. */
  pathSeparator?: string;
  /** `${secret:NAME}`: the value kept under NAME, or a sentence (naming NAME) that says why there is none. */
  secret?: SecretLookup;
}

/** Finds a secret's value for `${secret:NAME}`; `error` completes "uses ${secret:NAME}, …" and never holds a value. */
export type SecretLookup = (name: string) => { value: string } | { error: string };

/** Outcome of expanding one string. */
export interface ExpandResult {
  /** The expanded text. References to missing variables are left verbatim. */
  value: string;
  /** Names of variables referenced without a default that are not set (deduplicated). */
  missing: string[];
  /** Syntax problems (unterminated or malformed references); safe to show. */
  errors: string[];
  /**
   * References no value can be found for here (`${input:ID}` without its variable, VS Code's
   * `${command:...}`), each as a sentence that names it; present only when there are some.
   */
  unavailable?: string[];
  /** The names of the `${secret:NAME}` references expanded to their values; present only when there are some. */
  secrets?: string[];
}

/** The environment variable that gives `${input:ID}` its value: `MCP_INPUT_` and the id in capitals, `_` for other characters. */
export function inputVarName(id: string): string {
  return `MCP_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const INPUT_ID_RE = /^[A-Za-z0-9_.-]+$/;
/** As `SECRET_NAME_RE` of secrets/secretStore.ts (not imported: this file is in every start). */
const SECRET_NAME_RE = /^[A-Za-z0-9_./-]{1,128}$/;
/** VS Code's variables that name something only the editor knows (a setting, a command, one folder of several). */
const EDITOR_ONLY_RE = /^(config|command|extension|workspaceFolder|workspaceFolderBasename):/;

/** The value of a predefined client variable, or undefined when `name` is none (or not known). */
function clientVar(name: string, vars: ClientVars): string | undefined {
  if (name === 'pathSeparator' || name === '/') return vars.pathSeparator ?? '/';
  if (name === 'workspaceFolderBasename') return vars.workspaceFolder?.split(/[\\/]/).filter(Boolean).pop();
  return name === 'userHome' || name === 'workspaceFolder' ? vars[name] : undefined;
}

/**
 * Expands `${VAR}` / `${VAR:-default}` references (and other clients' variables, see the
 * file comment) in `input` using `env` and `vars`.
 * Never throws; callers decide whether missing variables are fatal.
 */
export function expandVars(input: string, env: NodeJS.ProcessEnv, vars: ClientVars = {}): ExpandResult {
  // Fast path: most strings have no `$` at all.
  if (!input.includes('$')) return { value: input, missing: [], errors: [] };
  let out = '';
  const missing: string[] = [];
  const errors: string[] = [];
  const unavailable: string[] = [];
  const secrets: string[] = [];
  const cannot = (text: string) => {
    if (!unavailable.includes(text)) unavailable.push(text);
  };
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
    const ref = input.slice(i, close + 1);
    i = close + 1;
    if (body.startsWith('input:')) {
      const id = body.slice('input:'.length);
      const name = INPUT_ID_RE.test(id) ? inputVarName(id) : undefined;
      const value = name === undefined ? undefined : env[name];
      if (value !== undefined) out += value;
      else {
        cannot(
          name
            ? `uses \${input:${id}}, which VS Code asks the user for; this runtime cannot ask: set ${name} to its value`
            : 'uses an ${input:...} whose id is not letters, digits, "_", "." and "-"',
        );
        out += ref;
      }
      continue;
    }
    if (body.startsWith('secret:')) {
      const name = body.slice('secret:'.length);
      const ok = SECRET_NAME_RE.test(name);
      const found = ok
        ? (vars.secret?.(name) ?? { error: 'but no secret store is open here' })
        : { error: 'whose name is not 1 to 128 letters, digits, "_", ".", "-" and "/"' };
      if ('value' in found) {
        out += found.value;
        if (!secrets.includes(name)) secrets.push(name);
      } else {
        cannot(`uses \${secret:${ok ? name : '...'}}, ${found.error}`);
        out += ref;
      }
      continue;
    }
    if (EDITOR_ONLY_RE.test(body)) {
      cannot(`uses \${${body.split(':')[0]}:...}, which only VS Code can fill in`);
      out += ref;
      continue;
    }
    const envForm = body.startsWith('env:');
    const rest = envForm ? body.slice('env:'.length) : body;
    const sep = rest.indexOf(':-');
    const name = sep >= 0 ? rest.slice(0, sep) : rest;
    const known = envForm ? undefined : clientVar(name, vars);
    if (known === undefined && !NAME_RE.test(name)) {
      // The malformed text itself is not quoted: it might be a pasted token.
      errors.push(
        `invalid variable reference at character ${i - ref.length + 1} ` +
          '(use ${NAME} or ${NAME:-default}; names are letters, digits and _, not starting with a digit)',
      );
      out += ref;
      continue;
    }
    // An environment variable wins over a client's predefined variable of the same name.
    const value = env[name] ?? known;
    if (sep >= 0) {
      out += value === undefined || value === '' ? rest.slice(sep + 2) : value;
    } else if (value === undefined) {
      const shown = envForm ? `env:${name}` : name;
      if (!missing.includes(shown)) missing.push(shown);
      out += ref;
    } else {
      out += value;
    }
  }
  return {
    value: out,
    missing,
    errors,
    ...(unavailable.length ? { unavailable } : {}),
    ...(secrets.length ? { secrets } : {}),
  };
}
