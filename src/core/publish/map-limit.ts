// Bounded concurrency for storage and network calls: the publish client's uploads and the admin
// API's R2 heads both fan out, and both must stay under their platform's limits on calls in flight.

/**
 * Runs `fn` over `items` with at most `limit` calls in flight (a new one starts as soon as one
 * ends), and resolves with the results in the items' order. Rejects with the first failure, after
 * which no further call starts.
 * @example const heads = await mapLimit(keys, 50, (key) => bucket.head(key))
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const workers = Array.from({ length: Math.min(Math.max(1, limit), items.length) }, async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        out[index] = await fn(items[index]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  });
  await Promise.all(workers);
  return out;
}
