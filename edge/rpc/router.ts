import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { CompactTxStreamer } from "../../proto/index.ts";
import type { EdgeServices } from "../services.ts";
import type { ChainInfo } from "./chain-info.ts";
import { jsonBlockMethods } from "./json-blocks.ts";
import { createOriginApi, proxiedMethods } from "./proxy.ts";
import { storedTreeStateMethods } from "./tree-states.ts";

/**
 * Registers every CompactTxStreamer method for one network on a Connect router. Errors are mapped
 * by the router's one interceptor (dispatch.ts), not here.
 */
export function registerRoutes(
  router: ConnectRouter,
  s: EdgeServices,
  info: ChainInfo,
  network: string,
): void {
  const origin = s.origin(network);
  const originUrl = s.config.origins.get(network);
  const api =
    origin !== undefined && originUrl !== undefined ? createOriginApi(origin, originUrl) : undefined;
  const proxied = proxiedMethods(api, network);
  router.service(CompactTxStreamer, {
    ...proxied,
    // Tree states from storage; the origin (when configured) answers what is not stored.
    ...storedTreeStateMethods(s, network, api !== undefined ? proxied : {}, () => info.latestBlock(network)),
    ...jsonBlockMethods(s, network),
    getLatestBlock: () => info.latestBlock(network),
    getLightdInfo: () => info.lightdInfo(network),
    getTaddressBalanceStream: () => {
      // Client streaming needs full-duplex HTTP, which gRPC-web and browsers cannot do.
      throw new ConnectError(
        "GetTaddressBalanceStream: client streaming is not available over gRPC-web; call GetTaddressBalance",
        Code.Unimplemented,
      );
    },
  });
}
