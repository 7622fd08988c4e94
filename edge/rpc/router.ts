import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { CompactTxStreamer } from "../../proto/index.ts";
import type { Env } from "../env.ts";
import { staticLightdInfo } from "./lightd-info.ts";

/** Registers the CompactTxStreamer methods the edge answers itself. */
export function registerRoutes(router: ConnectRouter, env: Env): void {
  router.service(CompactTxStreamer, {
    getLightdInfo: () => staticLightdInfo(env),
    getTaddressBalanceStream: () => {
      // Client streaming needs full-duplex HTTP, which gRPC-web and browsers cannot do.
      throw new ConnectError(
        "GetTaddressBalanceStream: client streaming is not available over gRPC-web; call GetTaddressBalance",
        Code.Unimplemented,
      );
    },
  });
}
