import { LightedgeError } from "../../proto/errors.ts";

/** Backoff for transient failures: 100 ms doubling to 5 s, with jitter. */
export function backoffMs(attempt: number): number {
  const base = Math.min(5_000, 100 * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Only these are worth retrying: a backend that is down or busy. Anything else is a bug or bad data. */
export function isTransient(err: unknown): boolean {
  if (err instanceof LightedgeError) return err.kind === "unavailable";
  return true; // network-level errors from SDKs (ECONNRESET, timeouts) are not LightedgeErrors
}

/**
 * Retries `task` while it fails transiently, forever (the indexer waits out a store or node
 * outage rather than exiting), reporting each failure. Non-transient errors are rethrown.
 */
export async function retrying<T>(
  task: () => Promise<T>,
  onError: (err: unknown) => void,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await task();
    } catch (err) {
      if (!isTransient(err) || signal?.aborted) throw err;
      onError(err);
      await sleep(backoffMs(attempt), signal);
    }
  }
}
