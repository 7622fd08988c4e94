import { AsyncLocalStorage } from "node:async_hooks";

/** What a Worker request lets outlive its response: `ExecutionContext.waitUntil`. */
export interface RequestLifetime {
  waitUntil(work: Promise<unknown>): void;
}

// Per-isolate state shared by requests (the cached reader) needs the *current* request's
// waitUntil; AsyncLocalStorage (nodejs_compat) carries it down the async chain of each request.
const scope = new AsyncLocalStorage<RequestLifetime>();

/** Runs `fn` with `lifetime` as the current request's (undefined: a runtime with no ExecutionContext). */
export function inRequestScope<T>(lifetime: RequestLifetime | undefined, fn: () => T): T {
  return lifetime === undefined ? fn() : scope.run(lifetime, fn);
}

/**
 * Lets `work` finish after the response: handed to the current request's waitUntil, so the caller
 * need not wait (a cache fill must not delay the answer it fills for). Outside a request (tests,
 * a runtime with no ExecutionContext) the caller waits for it, so it is never cut off silently.
 */
export async function afterResponse(work: Promise<unknown>): Promise<void> {
  const lifetime = scope.getStore();
  if (lifetime === undefined) {
    await work;
    return;
  }
  lifetime.waitUntil(work);
}
