/** Admission to something both runtimes bound: calls in flight, bytes held in memory. */
export interface Gate {
  /**
   * Waits for `weight` (1 unless given) of the capacity, in arrival order. A waiter whose signal
   * fires leaves the queue, rejecting with the signal's reason.
   */
  enter(signal?: AbortSignal, weight?: number): Promise<void>;
  /** Gives back what one `enter` of this `weight` took. */
  leave(weight?: number): void;
  /** The capacity taken now (for tests and diagnostics). */
  readonly held: number;
  /** Entries waiting now (for tests and diagnostics). */
  readonly waiting: number;
}

/**
 * A counting semaphore of `capacity`, first come first served: the origin bounds its node calls
 * in flight (so a burst queues here, not at the node), the edge the bytes its isolate buffers.
 * A weight above the whole capacity is admitted alone, once nothing else is held: a request that
 * could never fit still runs rather than waits forever. Strict order means a large waiter is not
 * starved by small ones that keep fitting in beside it.
 */
export function createGate(capacity: number): Gate {
  let held = 0;
  const waiting: { weight: number; admit: () => void }[] = [];
  const fits = (weight: number) => held === 0 || held + weight <= capacity;
  const admitWaiting = () => {
    while (waiting.length > 0 && fits(waiting[0]!.weight)) {
      const next = waiting.shift()!;
      held += next.weight;
      next.admit();
    }
  };
  return {
    get held() {
      return held;
    },
    get waiting() {
      return waiting.length;
    },
    enter(signal, weight = 1) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (waiting.length === 0 && fits(weight)) {
        held += weight;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          weight,
          admit: () => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          const at = waiting.indexOf(waiter);
          if (at >= 0) waiting.splice(at, 1);
          // The head of the queue may have been what held the others back.
          admitWaiting();
          reject(signal!.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        waiting.push(waiter);
      });
    },
    leave(weight = 1) {
      held -= weight;
      admitWaiting();
    },
  };
}
