import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { CompactTxStreamer } from "../../proto/index.ts";
import type { OriginServiceOptions } from "./context.ts";
import { createOriginService } from "./service.ts";

/**
 * Largest request message accepted. Above SendTransaction's 2,000,000-byte limit so an oversized
 * transaction gets its InvalidArgument (protocol.md) rather than a codec ResourceExhausted; also
 * fits 10,000 addresses or 20,000 mempool suffixes.
 */
/** connect-node's request handler (http.RequestListener and its HTTP/2 equivalent). */
export type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;

export const READ_MAX_BYTES = 4 * 1024 * 1024;

/** The Node request handler (HTTP/1.1 and HTTP/2) serving CompactTxStreamer over gRPC, gRPC-web and Connect. */
export function createOriginHandler(options: OriginServiceOptions): NodeHandlerFn {
  const service = createOriginService(options);
  return connectNodeAdapter({
    routes: (router: ConnectRouter) => {
      router.service(CompactTxStreamer, service);
    },
    readMaxBytes: READ_MAX_BYTES,
  });
}
