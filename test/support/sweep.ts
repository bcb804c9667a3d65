/**
 * A sweep's cases at once: each case is its own world (sandbox and emulator), and a case mostly waits (latencies,
 * retry pauses), so running them side by side keeps every check of every case and takes about the longest one's
 * time. Every case runs to its end (its world closed) before the first failure, in the cases' order, is thrown.
 */
export async function sweepAtOnce<T, R>(cases: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const settled = await Promise.allSettled(cases.map(run));
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<R>).value);
}

/** Seeds `1..count`. */
export const seeds = (count: number): number[] => Array.from({ length: count }, (_, i) => i + 1);
