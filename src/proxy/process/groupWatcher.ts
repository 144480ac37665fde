/**
 * The watcher: one tiny `/bin/sh` process per proxy process that ends the proxy's server
 * groups when the proxy dies, however it dies (SIGKILL included). It runs in its own session
 * (so a kill of the proxy's group or terminal spares it) and reads its stdin, a pipe whose
 * only writer is the proxy. Lines: `g <pgid> <start>` a server group was started, `u <pgid>`
 * it was stopped, `p <pid> <start>` a descendant outside every group (it called setsid or
 * setpgid), `q <pid>` that one is gone. At EOF (the proxy exited or was killed) it finds every
 * process still in those groups or below them (Linux: /proc ppid links), SIGTERMs them, waits
 * 1 s, SIGKILLs what is left and exits. Start times (field 22 of /proc/<pid>/stat; `-` where
 * unknown) guard against pid reuse. It costs one shell (about 1 MB) and never writes anything.
 * POSIX only; on Windows nothing is started (docs/decisions/0011-orphan-watcher.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Logger } from '../common/logger.js';

const SHELL = '/bin/sh';

// dash/bash/zsh-compatible POSIX sh; no fork per line, one `sleep` at the end.
const SCRIPT = `
trap '' HUP INT TERM PIPE
G=' ' P=' '
st() { S=; { read -r l < "/proc/$1/stat"; } 2>/dev/null || return 1; l=\${l##*) }; set -- $l; S=\${20}; }
del() { R=' '; for e in $1; do case $e in "$2":*) ;; *) R="$R$e ";; esac; done; }
while read -r op a b; do
  case $op in
    g) G="$G$a:$b ";;
    u) del "$G" "$a"; G=$R;;
    p) P="$P$a:$b ";;
    q) del "$P" "$a"; P=$R;;
  esac
done
[ "$G$P" = '  ' ] && exit 0
V=' '
for e in $G; do
  g=\${e%%:*}; s=\${e#*:}
  if st "$g" && [ "$s" != - ] && [ "$S" != "$s" ]; then continue; fi
  V="$V$g "
done
K=' '
scan() {
  [ -d /proc/self ] || return 0
  c=1
  while [ $c = 1 ]; do
    c=0
    for f in /proc/[0-9]*/stat; do
      { read -r l < "$f"; } 2>/dev/null || continue
      p=\${f#/proc/}; p=\${p%/stat}
      case $K in *" $p:"*) continue;; esac
      r=\${l##*) }; set -- $r
      h=0
      case $V in *" $3 "*) h=1;; esac
      case $K in *" $2:"*) h=1;; esac
      case $P in *" $p:\${20} "*) h=1;; esac
      if [ $h = 1 ]; then K="$K$p:\${20} "; c=1; fi
    done
  done
}
scan
for g in $V; do kill -TERM -$g 2>/dev/null; done
for e in $K; do kill -TERM \${e%%:*} 2>/dev/null; done
sleep 1
scan
for g in $V; do kill -KILL -$g 2>/dev/null; done
for e in $K; do p=\${e%%:*}; st "$p" && [ "$S" = "\${e#*:}" ] && kill -KILL "$p" 2>/dev/null; done
exit 0
`;

/** See the file comment. Started on the first line sent; every method is a no-op once it failed. */
export class GroupWatcher {
  private child?: ChildProcess;
  private broken = false;
  private exited?: Promise<void>;

  constructor(
    private readonly log?: Logger,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {}

  /** The watcher's pid, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  send(line: string): void {
    const child = this.ensure();
    if (!child?.stdin?.writable) return;
    child.stdin.write(`${line}\n`);
  }

  /** Closes the pipe: the watcher ends whatever is still listed, then exits. */
  close(): void {
    this.child?.stdin?.end();
  }

  /**
   * Closes the pipe and resolves true once the watcher has exited (at once with nothing
   * listed; about 1 s when it still had groups to end), false after `timeoutMs`. True at once
   * when it never started.
   */
  async closeAndWait(timeoutMs: number): Promise<boolean> {
    if (!this.exited) return true;
    this.close();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
    const gone = await Promise.race([this.exited.then(() => true), late]);
    clearTimeout(timer);
    return gone;
  }

  private ensure(): ChildProcess | undefined {
    if (this.child || this.broken) return this.child;
    if (this.platform === 'win32' || !existsSync(SHELL)) {
      this.broken = true;
      return undefined;
    }
    try {
      const child = spawn(SHELL, ['-c', SCRIPT], {
        stdio: ['pipe', 'ignore', 'ignore'],
        detached: true,
        env: { PATH: '/usr/bin:/bin' },
        cwd: '/',
      });
      child.on('error', (err) => {
        this.broken = true;
        this.log?.debug(`group watcher unavailable: ${err.message}`);
      });
      child.stdin!.on('error', () => {
        this.broken = true;
      });
      this.exited = new Promise((r) => {
        child.once('exit', () => r());
        child.once('error', () => r());
      });
      // Never keeps the proxy alive: it is there for when the proxy is gone.
      child.unref();
      (child.stdin as unknown as { unref?: () => void }).unref?.();
      this.child = child;
      this.log?.debug(`group watcher pid ${child.pid}`);
    } catch (err) {
      this.broken = true;
      this.log?.debug(`group watcher unavailable: ${(err as Error).message}`);
    }
    return this.child;
  }
}
