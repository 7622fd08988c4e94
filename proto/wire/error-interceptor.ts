import { Code, type ConnectError, type Interceptor } from "@connectrpc/connect";
import { toConnectError } from "../errors.ts";

/** What a router reports per call (origin: Prometheus on the admin port). */
export interface CallObserver {
  observe(rpc: string, code: string, seconds: number): void;
}

/** Where errors whose detail stays server-side go, with the RPC they ended. */
export type RpcErrorLog = (rpc: string, err: unknown) => void;

export interface ErrorInterceptorOptions {
  log?: RpcErrorLog;
  /** `grpc-retry-pushback-ms` on every Unavailable (proto/errors.ts). */
  pushbackMs?: number;
  observer?: CallObserver;
}

const codeName = (err: ConnectError | undefined) => (err === undefined ? "ok" : Code[err.code].toLowerCase());

/**
 * The one place a Connect router maps errors (origin and edge alike): whatever a handler throws,
 * before its answer or in the middle of a stream, leaves as `toConnectError` makes it — a domain
 * error's kind as its code, the RPC name first in its message, hidden causes logged, a pushback on
 * Unavailable. Also times each call for the observer (streams: until the last message).
 */
export function errorInterceptor(options: ErrorInterceptorOptions): Interceptor {
  return (next) => async (req) => {
    const rpc = req.method.name;
    const report = { pushbackMs: options.pushbackMs, log: (e: unknown) => options.log?.(rpc, e) };
    const started = performance.now();
    const done = (err?: ConnectError) =>
      options.observer?.observe(rpc, codeName(err), (performance.now() - started) / 1000);
    let res: Awaited<ReturnType<typeof next>>;
    try {
      res = await next(req);
    } catch (err) {
      const mapped = toConnectError(rpc, err, report);
      done(mapped);
      throw mapped;
    }
    if (!res.stream) {
      done();
      return res;
    }
    const messages = res.message;
    return {
      ...res,
      message: (async function* () {
        let failed: ConnectError | undefined;
        try {
          yield* messages;
        } catch (err) {
          failed = toConnectError(rpc, err, report);
          throw failed;
        } finally {
          done(failed);
        }
      })(),
    };
  };
}
