// Unguessable keys for what lives per call (held calls, translated task ids): drawn from a
// pool of random bytes filled 4 KiB at a time, so a key costs a slice instead of a trip to
// the system's random source. Every byte is handed out once. `node:crypto` loads on first use.

const POOL_BYTES = 4096;
let pool: Buffer | undefined;
let used = POOL_BYTES;

/** `bytes` random bytes (at most the pool's size) as base64url. */
export function randomKey(bytes: number): string {
  if (bytes > POOL_BYTES) throw new RangeError(`a random key of at most ${POOL_BYTES} bytes`);
  if (used + bytes > POOL_BYTES) {
    pool = process.getBuiltinModule('node:crypto').randomBytes(POOL_BYTES);
    used = 0;
  }
  const key = pool!.toString('base64url', used, used + bytes);
  used += bytes;
  return key;
}
