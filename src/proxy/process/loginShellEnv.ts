/**
 * Reads the PATH of the user's login shell: `$SHELL -i -l -c <script>`, where the script
 * prints PATH between two random markers, so whatever the rc files print before or after is
 * ignored. The shell runs detached (its own session: no controlling terminal to grab, and a
 * process group to kill), with stdin on /dev/null (a prompt in an rc file reads EOF at
 * once), and under a deadline (5 s): at the deadline, or 1 s after the end marker if the
 * shell lingers (a `.bash_logout`, a job an rc file left), its whole group gets SIGKILL.
 * Shell families differ in syntax: POSIX shells (sh, dash, bash, zsh, ksh) print "$PATH";
 * fish keeps PATH as a list and joins it itself; csh/tcsh take no `-l` beside other flags.
 * Other shells (nu, xonsh, pwsh...) are not read: the caller falls back to known folders.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import path from 'node:path';
import { RUN_AS_NODE_ENV, RESOLVING_ENV_ENV, TOKEN_ENV } from '../common/envNames.js';

export const LOGIN_SHELL_TIMEOUT_MS = 5000;
/** After the end marker, how long the shell may take to exit before its group is killed. */
const LINGER_MS = 1000;
/** Output kept while looking for the markers; a PATH is far shorter. */
const MAX_OUTPUT_CHARS = 1 << 20;

export type ShellFamily = 'posix' | 'fish' | 'csh';

/** The markers a read looks for, and how the script spells them (split, so argv never holds one whole). */
export interface Markers {
  start: string;
  end: string;
}

export function newMarkers(): Markers {
  // Taken when first needed: stdio aggregation otherwise never loads node:crypto at start.
  const id = process.getBuiltinModule('node:crypto').randomBytes(8).toString('hex');
  return { start: `__QIMING_ENV_START_${id}__`, end: `__QIMING_ENV_END_${id}__` };
}

/** Which syntax a shell speaks, from its file name; undefined for shells we do not read. */
export function shellFamily(shell: string): ShellFamily | undefined {
  const name = path
    .basename(shell)
    .replace(/\.exe$/i, '')
    .toLowerCase();
  if (/^(sh|bash|rbash|dash|ash|zsh|ksh|ksh93|mksh|pdksh|oksh|yash|busybox)$/.test(name)) return 'posix';
  if (name === 'fish') return 'fish';
  if (name === 'csh' || name === 'tcsh') return 'csh';
  return undefined;
}

const quote = (s: string) => `'${s}'`;
/** A marker as two quoted halves: the whole marker appears only in the shell's output. */
const split = (m: string) => `${quote(m.slice(0, 12))} ${quote(m.slice(12))}`;

/** The arguments that make `shell` print PATH between the markers, or undefined if unsupported. */
export function loginShellArgs(shell: string, markers: Markers): string[] | undefined {
  const family = shellFamily(shell);
  if (!family) return undefined;
  // fish: PATH is a list; `string join` gives the colon form (fish-only syntax).
  const value = family === 'fish' ? '(string join : $PATH)' : '"$PATH"';
  const script = `printf '%s%s%s%s%s' ${split(markers.start)} ${value} ${split(markers.end)}`;
  // csh reads its login files only for a lone `-l`; -i still reads ~/.cshrc, where PATH is set.
  if (family === 'csh') return ['-i', '-c', script];
  return ['-i', '-l', '-c', script];
}

/** The text between the markers, or undefined when both are not there. */
export function textBetween(output: string, markers: Markers): string | undefined {
  const a = output.indexOf(markers.start);
  if (a < 0) return undefined;
  const from = a + markers.start.length;
  const b = output.indexOf(markers.end, from);
  return b < 0 ? undefined : output.slice(from, b);
}

export type LoginShellRead =
  | { ok: true; shell: string; path: string; ms: number }
  | { ok: false; shell: string; reason: string; ms: number; pid?: number };

export interface ReadLoginShellOptions {
  /** The shell to run; default `$SHELL`. */
  shell?: string;
  /** The environment the shell starts with; default `process.env` (the bridge token removed). */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /**
   * Called with the shell's pid (its group) once spawned; the function it returns, once the
   * group is killed. The proxy records the group with its watcher (groupRegistry.ts) here, so
   * a proxy killed during the read does not leave a hanging shell behind.
   */
  track?: (pgid: number) => () => void;
}

/** The environment a login shell starts with: ours, minus what it has no business seeing. */
function shellEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, [RESOLVING_ENV_ENV]: '1' };
  delete out[TOKEN_ENV];
  delete out[RUN_AS_NODE_ENV];
  return out;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** Runs the login shell once (see the file comment). Never rejects; `ok: false` says why. */
export function readLoginShellPath(opts: ReadLoginShellOptions = {}): Promise<LoginShellRead> {
  const env = opts.env ?? process.env;
  const shell = opts.shell ?? env.SHELL ?? '';
  const started = Date.now();
  const ms = () => Date.now() - started;
  if (!shell) return Promise.resolve({ ok: false, shell, reason: 'SHELL is not set', ms: 0 });
  if (!path.isAbsolute(shell))
    return Promise.resolve({ ok: false, shell, reason: `SHELL is not an absolute path`, ms: 0 });
  const markers = newMarkers();
  const args = loginShellArgs(shell, markers);
  if (!args)
    return Promise.resolve({
      ok: false,
      shell,
      reason: `${path.basename(shell)} is not a shell we can read (sh, bash, zsh, dash, ksh, fish, csh)`,
      ms: 0,
    });
  const timeoutMs = opts.timeoutMs ?? LOGIN_SHELL_TIMEOUT_MS;
  return new Promise((resolve) => {
    let out = '';
    let settled = false;
    const timers: { deadline?: NodeJS.Timeout; linger?: NodeJS.Timeout } = {};
    let child: ChildProcessByStdio<null, Readable, null>;
    try {
      child = spawn(shell, args, {
        env: shellEnv(env),
        stdio: ['ignore', 'pipe', 'ignore'],
        detached: true,
        shell: false,
        windowsHide: true,
      });
    } catch (err) {
      resolve({ ok: false, shell, reason: `cannot run ${shell}: ${(err as Error).message}`, ms: ms() });
      return;
    }
    const untrack = child.pid !== undefined ? opts.track?.(child.pid) : undefined;
    const settle = (r: LoginShellRead) => {
      if (settled) return;
      settled = true;
      clearTimeout(timers.deadline);
      resolve(r);
    };
    const fail = (reason: string) => {
      killGroup(child.pid);
      settle({ ok: false, shell, reason, ms: ms(), pid: child.pid });
    };
    timers.deadline = setTimeout(
      () => fail(`no answer within ${timeoutMs} ms (the shell's process group was killed)`),
      timeoutMs,
    );
    child.on('error', (err: NodeJS.ErrnoException) =>
      fail(err.code === 'ENOENT' ? `${shell} not found` : `cannot run ${shell}: ${err.code ?? err.message}`),
    );
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (settled) return;
      out += chunk;
      const found = textBetween(out, markers);
      if (found !== undefined) {
        settle({ ok: true, shell, path: found.trim(), ms: ms() });
        // The shell exits right after printing; one that lingers is ended with its group.
        timers.linger = setTimeout(() => killGroup(child.pid), LINGER_MS);
        timers.linger.unref();
      } else if (out.length > MAX_OUTPUT_CHARS) {
        fail('its rc files printed more than 1 MiB without the PATH');
      } else if (!out.includes(markers.start)) {
        out = out.slice(-markers.start.length);
      }
    });
    let exit = '';
    child.on('exit', (code, signal) => {
      clearTimeout(timers.linger);
      exit = signal ? `on ${signal}` : `with code ${code}`;
      // A group member left behind (a job an rc file started) goes with the shell; that
      // also ends its hold on stdout, so 'close' follows.
      killGroup(child.pid);
      untrack?.();
    });
    child.on('close', () => {
      if (!settled) fail(`exited ${exit || 'early'} without printing PATH`);
    });
  });
}
