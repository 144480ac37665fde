/**
 * The entry an install will write, each string as its pieces (planText.ts), and what is made
 * of it: the line the consent shows (the command as it runs, or the URL it reaches), the
 * variables and headers it lists, which secrets the user typed end up on the command line,
 * and the entry written into the config file with each secret where the store keeps it.
 */
import type { EntryDraft } from '../../shared/configContract.js';
import { commandLine, shellWord } from '../../shared/shellWords.js';
import { entryText, hasSecret, realText, shownText, type Piece, type PlanText } from './planText.js';

export interface PlannedEntry {
  kind: 'stdio' | 'remote';
  command?: PlanText;
  args?: PlanText[];
  env?: Record<string, PlanText>;
  url?: PlanText;
  transport?: 'http' | 'sse';
  headers?: Record<string, PlanText>;
}

/** A variable or header as the consent lists it: its value as the server gets it, the user's secret typing masked. */
export interface ShownValue {
  name: string;
  value: string;
  /** It holds a value the user typed into a secret field: it is kept in the secret store. */
  secret: boolean;
}

/**
 * How the written entry holds what the user typed into secret fields: a whole variable or
 * header value (`value`), or one piece of an argument (`arg`); each answers the entry's text
 * for it (a `${secret:NAME}` reference). Without it, they are written as they are.
 */
export interface SecretWriter {
  value(field: 'env' | 'headers', key: string, text: string): string;
  arg(piece: Piece): string;
}

/** The command line (or the URL) as the consent shows it: what runs, with only the user's secret typing masked. */
export function shownLine(e: PlannedEntry): string {
  if (e.kind === 'remote') {
    const shown = shownText(e.url ?? []);
    try {
      return new URL(shown).href;
    } catch {
      return shellWord(shown);
    }
  }
  return commandLine(shownText(e.command ?? []), (e.args ?? []).map(shownText));
}

/** The variables (stdio) or headers (remote) as the consent lists them. */
export function shownValues(values: Record<string, PlanText> | undefined): ShownValue[] {
  return Object.entries(values ?? {}).map(([name, v]) => ({ name, value: shownText(v), secret: hasSecret(v) }));
}

/** The keys of the inputs whose secret value is a piece of an argument: the process list shows it while the server runs. */
export function secretsInArgs(e: PlannedEntry): string[] {
  return [...new Set((e.args ?? []).flatMap((a) => a.flatMap((p) => (p.secret === undefined ? [] : [p.secret]))))];
}

/** Whether the entry holds anything the user typed into a secret field. */
export function holdsSecrets(e: PlannedEntry): boolean {
  return [...(e.args ?? []), ...Object.values(e.env ?? {}), ...Object.values(e.headers ?? {})].some(hasSecret);
}

/** The entry as the config file gets it: literal text (literal.ts), the install's references, and secrets as `secrets` writes them. */
export function writtenEntry(e: PlannedEntry, secrets?: SecretWriter): EntryDraft {
  const values = (field: 'env' | 'headers', map: Record<string, PlanText>) =>
    Object.fromEntries(
      Object.entries(map).map(([k, v]) => [
        k,
        secrets && hasSecret(v) ? secrets.value(field, k, realText(v)) : entryText(v),
      ]),
    );
  if (e.kind === 'remote') {
    const out: EntryDraft = { kind: 'remote', url: entryText(e.url ?? []), transport: e.transport ?? 'http' };
    if (e.headers && Object.keys(e.headers).length > 0) out.headers = values('headers', e.headers);
    return out;
  }
  const out: EntryDraft = {
    kind: 'stdio',
    command: entryText(e.command ?? []),
    args: (e.args ?? []).map((a) => entryText(a, secrets ? (p) => secrets.arg(p) : undefined)),
  };
  if (e.env && Object.keys(e.env).length > 0) out.env = values('env', e.env);
  return out;
}
