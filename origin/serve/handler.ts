import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { CompactTxStreamer, History } from "../../proto/index.ts";
import { errorInterceptor } from "../../proto/wire/error-interceptor.ts";
import { BufferPool } from "../store/index.ts";
import { DEFAULT_RETRY_PUSHBACK_MS, type OriginServiceOptions } from "./context.ts";
import { clampDeadlineHeaders } from "./deadline.ts";
import { withFastPath } from "./fast/router.ts";
import { historyService } from "./history.ts";
import { createOriginService } from "./service.ts";
import { withStrictRequests } from "./strict-requests.ts";

/** connect-node's request handler (http.RequestListener and its HTTP/2 equivalent). */
export type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;

/**
 * connect-node's own cap: above every per-method cap (proto/wire/limits.ts, checked first by
 * strict-requests.ts), JSON's base64 included, so the per-method caps are what clients meet.
 */
export const READ_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The Node request handler (HTTP/1.1 and HTTP/2) serving CompactTxStreamer over gRPC, gRPC-web
 * and Connect: binary block RPCs on the stored-frame fast path (fast/), everything else through
 * connect-node.
 */
export function createOriginHandler(options: OriginServiceOptions): NodeHandlerFn {
  const service = createOriginService(options);
  const pushbackMs = options.retryPushbackMs ?? DEFAULT_RETRY_PUSHBACK_MS;
  const connect = connectNodeAdapter({
    routes: (router: ConnectRouter) => {
      router.service(CompactTxStreamer, service);
      if (options.history) router.service(History, historyService(options.history, options.network));
    },
    readMaxBytes: READ_MAX_BYTES,
    // The router's one error mapping (and per-call metrics); the fast path maps its own.
    interceptors: [errorInterceptor({ pushbackMs, log: options.log, observer: options.observer })],
  });
  const strict = withStrictRequests({ pushbackMs, log: options.log }, connect);
  const clamped: NodeHandlerFn = (req, res) => {
    clampDeadlineHeaders(req.headers);
    strict(req, res);
  };
  if (options.fastPath === false) return clamped;
  const deps = {
    chain: options.chain,
    pushbackMs,
    log: options.log,
    observer: options.observer,
    // One per server: sealed runs are read into buffers that come back once written.
    pool: options.readPool ?? new BufferPool(),
  };
  return withFastPath(deps, clamped);
}
