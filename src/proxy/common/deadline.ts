/** Largest delay `setTimeout` honours; bigger values fire at once, so they are rejected (config and command line alike). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** Bounds a promise in time: rejects with `message` after `ms` (0 = no bound). */
export function withDeadline<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  if (!ms) return p;
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]);
}

/** `p`, or `fallback` once `ms` have passed (the timer is unref'd: it never keeps a process up). */
export function within<T, F = undefined>(p: Promise<T>, ms: number, fallback?: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback as F), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
