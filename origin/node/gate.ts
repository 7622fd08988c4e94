/**
 * A counting semaphore: bounds calls in flight so a burst queues here, not at the node. A
 * waiter whose signal fires leaves the queue (rejecting with the signal's reason).
 */
export function createGate(limit: number): { enter(signal?: AbortSignal): Promise<void>; leave(): void } {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    enter(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (active < limit) {
        active++;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const at = waiting.indexOf(admit);
          if (at >= 0) waiting.splice(at, 1);
          reject(signal!.reason);
        };
        const admit = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        waiting.push(admit);
      });
    },
    leave() {
      const next = waiting.shift();
      if (next) next();
      else active--;
    },
  };
}
