/**
 * The loopback redirect target of one sign-in: `http://127.0.0.1:<port>/callback`, on a port
 * that stays the same for a server across restarts (from `callbackPort`, else derived from a
 * hash of the server's URL, so a registered redirect URI keeps matching). It takes one
 * answer whose `state` matches, tells the browser it may close the tab, and closes.
 */
import http from 'node:http';
import { crypto } from './oauthStore.js';

export interface CallbackResult {
  code?: string;
  /** `error` (and its description) when the authorization server refused. */
  error?: string;
  iss?: string;
}

/** Ports 20000-29999: below the ephemeral ranges of Linux (32768+) and Windows (49152+). */
export function derivedCallbackPort(serverUrl: string): number {
  const h = crypto().createHash('sha256').update(serverUrl).digest();
  return 20_000 + (h.readUInt32BE(0) % 10_000);
}

const PAGE = (text: string) =>
  `<!doctype html><meta charset="utf-8"><title>Qiming MCP</title><body style="font-family:sans-serif;margin:3em">${text}</body>`;

export class CallbackServer {
  readonly result: Promise<CallbackResult>;
  private settle!: (r: CallbackResult) => void;
  private constructor(
    private readonly server: http.Server,
    readonly port: number,
    private readonly state: string,
  ) {
    this.result = new Promise((resolve) => (this.settle = resolve));
    server.on('request', (req, res) => this.handle(req, res));
  }

  get redirectUri(): string {
    return `http://127.0.0.1:${this.port}/callback`;
  }

  /** Binds 127.0.0.1 on the first free port of `ports`. */
  static async listen(ports: number[], state: string): Promise<CallbackServer> {
    let last: unknown;
    for (const port of ports) {
      const server = http.createServer();
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, '127.0.0.1', () => resolve());
        });
        const bound = (server.address() as { port: number }).port;
        return new CallbackServer(server, bound, state);
      } catch (err) {
        last = err;
        server.close();
      }
    }
    const code = (last as NodeJS.ErrnoException | undefined)?.code;
    throw new Error(
      `the sign-in callback port ${ports.join('/')} is ${code === 'EADDRINUSE' ? 'in use' : `unavailable (${code})`}`,
    );
  }

  /** Waits for the answer at most `ms`. */
  wait(ms: number): Promise<CallbackResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<CallbackResult>((resolve) => {
      timer = setTimeout(() => resolve({ error: `no answer from the browser within ${Math.round(ms / 1000)} s` }), ms);
      timer.unref?.();
    });
    return Promise.race([this.result, timeout]).finally(() => clearTimeout(timer));
  }

  close(): void {
    this.server.closeAllConnections?.();
    this.server.close();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const reply = (status: number, text: string) => {
      res.writeHead(status, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        Connection: 'close',
      });
      res.end(PAGE(text));
    };
    if (req.method !== 'GET' || url.pathname !== '/callback') return reply(404, 'Not found.');
    // A request without our state is someone else's (or a forgery): ignored, the flow waits on.
    if (url.searchParams.get('state') !== this.state)
      return reply(400, 'This sign-in link is not the one in progress.');
    const error = url.searchParams.get('error');
    const iss = url.searchParams.get('iss') ?? undefined;
    if (error) {
      const desc = url.searchParams.get('error_description');
      this.settle({ error: desc ? `${error}: ${desc}` : error, iss });
      return reply(200, 'Sign-in was refused. You can close this tab.');
    }
    const code = url.searchParams.get('code');
    if (!code) return reply(400, 'The answer has no authorization code.');
    this.settle({ code, iss });
    reply(200, 'Signed in. You can close this tab and return to the app.');
  }
}
