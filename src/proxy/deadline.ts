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
