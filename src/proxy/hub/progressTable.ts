/**
 * Progress routes: the proxy gives each downstream request's progress token an upstream token
 * of its own (`qp<n>`, unique per hub), so that two sessions using the same token on one shared
 * server never hear each other's progress. Keyed by upstream id and upstream token.
 */
export interface ProgressRoute<S> {
  session: S;
  /** The token as the session sent it. */
  token: string | number;
  requestId: string | number;
  /** Keeps the call's timeout alive while progress arrives. */
  touch: () => void;
}

export class ProgressTable<S> {
  private readonly routes = new Map<string, ProgressRoute<S>>();
  private nextToken = 1;

  /** Registers a route; returns the token to send upstream. */
  add(upstreamId: string, route: ProgressRoute<S>): string {
    const upstreamToken = `qp${this.nextToken++}`;
    this.routes.set(`${upstreamId}\0${upstreamToken}`, route);
    return upstreamToken;
  }

  /** Points an existing upstream token at another session's request (a held call's retry: heldCall.ts). */
  put(upstreamId: string, upstreamToken: string, route: ProgressRoute<S>): void {
    this.routes.set(`${upstreamId}\0${upstreamToken}`, route);
  }

  get(upstreamId: string, upstreamToken: unknown): ProgressRoute<S> | undefined {
    return this.routes.get(`${upstreamId}\0${String(upstreamToken)}`);
  }

  delete(upstreamId: string, upstreamToken: string): void {
    this.routes.delete(`${upstreamId}\0${upstreamToken}`);
  }

  /** Forgets every route of a closed session. */
  dropSession(session: S): void {
    for (const [k, r] of this.routes) if (r.session === session) this.routes.delete(k);
  }
}
