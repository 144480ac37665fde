/**
 * HoldGate: a promise that later work waits on until `release()` is called or `maxMs` has
 * passed, whichever comes first. LeanHttpClientTransport holds the messages that follow
 * `notifications/initialized` with one until its GET event stream is answered.
 */
export class HoldGate {
  readonly wait: Promise<void>;
  private done!: () => void;
  private readonly timer: NodeJS.Timeout;
  private released = false;

  constructor(maxMs: number, onRelease?: () => void) {
    this.wait = new Promise<void>((resolve) => {
      this.done = () => {
        if (this.released) return;
        this.released = true;
        clearTimeout(this.timer);
        onRelease?.();
        resolve();
      };
    });
    this.timer = setTimeout(() => this.release(), maxMs);
  }

  release(): void {
    this.done();
  }
}
