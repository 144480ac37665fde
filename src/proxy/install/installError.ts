/** A failure of an install step with a message meant for the user (never a stack trace). */
export class InstallError extends Error {
  constructor(
    message: string,
    /** The HTTP status a bridge route answers it with. */
    readonly status: number = 400,
  ) {
    super(message);
    this.name = 'InstallError';
  }
}
