import { AsyncLocalStorage } from "node:async_hooks";

/** What a Worker request lets outlive its response: `ExecutionContext.waitUntil`. */
export interface RequestLifetime {
  waitUntil(work: Promise<unknown>): void;
}

interface Scope {
  lifetime: RequestLifetime;
  /** Settles when the handler has returned its Response (or thrown). */
  answered: Promise<void>;
  /** The request's own signal: fires when its client goes away. */
  cancelled?: AbortSignal;
}

// Per-isolate state shared by requests (the cached reader) needs the *current* request's
// waitUntil; AsyncLocalStorage (nodejs_compat) carries it down the async chain of each request.
const scope = new AsyncLocalStorage<Scope>();

/**
 * Runs `fn` with `lifetime` as the current request's (undefined: a runtime with no ExecutionContext).
 * Work handed to afterResponse starts once `fn` has settled. `cancelled`: the request's signal.
 */
export async function inRequestScope<T>(
  lifetime: RequestLifetime | undefined,
  fn: () => Promise<T> | T,
  cancelled?: AbortSignal,
): Promise<T> {
  if (lifetime === undefined) return fn();
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  try {
    return await scope.run({ lifetime, answered, cancelled }, fn);
  } finally {
    answer();
  }
}

/** One macrotask: lets the runtime write out a Response just returned before more work runs. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Runs `work` after the response: it starts once the handler has returned its Response and the
 * runtime has had a turn to send it, and is handed to the request's waitUntil, so the caller need
 * not wait. Why not start it at once: a cache fill's put is I/O the isolate's thread drives
 * (building the entry, the cache's subrequest); started mid-request it runs beside what the answer
 * still needs (GetBlock's frame read after its hash shard) and delays it — the answer it fills for
 * (bench/scale: `scale.blockByHash`). Outside a request (tests, a runtime with no ExecutionContext)
 * it runs now and the caller waits for it, so it is never cut off silently.
 */
export async function afterResponse(work: () => Promise<unknown>): Promise<void> {
  const current = scope.getStore();
  if (current === undefined) {
    await work();
    return;
  }
  current.lifetime.waitUntil(current.answered.then(nextTask).then(work));
}

/**
 * The current request's signal, which fires when its client goes away (Request.signal under
 * workerd's `enable_request_signal`, wrangler.toml); undefined outside a request. Why isolate-wide
 * allowances listen to it: workerd drops a cancelled request's pending work, so code after an
 * await may never run, and what the request held (buffered spans, address records) would never be
 * given back by it.
 */
export function requestCancelled(): AbortSignal | undefined {
  return scope.getStore()?.cancelled;
}

/**
 * The one release of something the current request holds in the isolate (an allowance's share):
 * `leave` runs once, at the first of the returned function's call or the request's cancellation.
 */
export function heldUntilCancelled(leave: () => void): () => void {
  const cancelled = requestCancelled();
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    cancelled?.removeEventListener("abort", release);
    leave();
  };
  if (cancelled?.aborted) release();
  else cancelled?.addEventListener("abort", release, { once: true });
  return release;
}
