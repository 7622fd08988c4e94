// The one Node API the edge uses, provided by workerd under `nodejs_compat` (wrangler.toml):
// declared here because the edge compiles against the Workers types, not Node's.
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    run<R>(store: T, fn: () => R): R;
    getStore(): T | undefined;
  }
}
