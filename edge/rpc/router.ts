import type { ConnectRouter } from "@connectrpc/connect";
import { CompactTxStreamer } from "../../proto/index.ts";
import { createHistoryApi } from "../history/origin-tail.ts";
import { historyMethods } from "../history/routes.ts";
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
  const history =
    origin !== undefined && originUrl !== undefined ? createHistoryApi(origin, originUrl) : undefined;
  const proxied = proxiedMethods(api, network);
  const latest = () => info.latestBlock(network);
  router.service(CompactTxStreamer, {
    ...proxied,
    // GetTransaction and the address RPCs from the store's history, the origin's tail merged in;
    // the proxied versions answer what the store cannot (history/routes.ts).
    ...historyMethods(
      { s, network, tail: { network, api, history }, tip: async () => Number((await latest()).height) },
      proxied,
    ),
    // Tree states from storage; the origin (when configured) answers what is not stored.
    ...storedTreeStateMethods(s, network, api !== undefined ? proxied : {}, () => info.latestBlock(network)),
    ...jsonBlockMethods(s, network),
    getLatestBlock: latest,
    getLightdInfo: () => info.lightdInfo(network),
  });
}
