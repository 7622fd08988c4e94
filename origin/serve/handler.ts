import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { CompactTxStreamer } from "../../proto/index.ts";
import { DEFAULT_RETRY_PUSHBACK_MS, type OriginServiceOptions } from "./context.ts";
import { clampDeadlineHeaders } from "./deadline.ts";
import { withFastPath } from "./fast/router.ts";
import { createOriginService } from "./service.ts";
import { withStrictRequests } from "./strict-requests.ts";

/** connect-node's request handler (http.RequestListener and its HTTP/2 equivalent). */
export type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;

/**
 * Largest request message accepted. Above SendTransaction's 2,000,000-byte limit so an oversized
 * transaction gets its InvalidArgument (protocol.md) rather than a codec ResourceExhausted; also
 * fits 10,000 addresses or 20,000 mempool suffixes.
 */
export const READ_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The Node request handler (HTTP/1.1 and HTTP/2) serving CompactTxStreamer over gRPC, gRPC-web
 * and Connect: binary block RPCs on the stored-frame fast path (fast/), everything else through
 * connect-node.
 */
export function createOriginHandler(options: OriginServiceOptions): NodeHandlerFn {
  const service = createOriginService(options);
  const connect = connectNodeAdapter({
    routes: (router: ConnectRouter) => {
      router.service(CompactTxStreamer, service);
    },
    readMaxBytes: READ_MAX_BYTES,
  });
  const strict = withStrictRequests(
    {
      readMaxBytes: READ_MAX_BYTES,
      pushbackMs: options.retryPushbackMs ?? DEFAULT_RETRY_PUSHBACK_MS,
      log: options.log,
    },
    connect,
  );
  const clamped: NodeHandlerFn = (req, res) => {
    clampDeadlineHeaders(req.headers);
    strict(req, res);
  };
  if (options.fastPath === false) return clamped;
  const deps = {
    chain: options.chain,
    pushbackMs: options.retryPushbackMs ?? DEFAULT_RETRY_PUSHBACK_MS,
    readMaxBytes: READ_MAX_BYTES,
    log: options.log,
    observer: options.observer,
  };
  return withFastPath(deps, clamped);
}
