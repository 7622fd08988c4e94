import { sealedHashResolver } from "../../origin/index/sealed-hash.ts";
import { createSealedReader } from "../../origin/index/sealed-reader.ts";
import { createTail } from "../../origin/index/tail.ts";
import { createChainView } from "../../origin/index/view.ts";
import { createOriginServer } from "../../origin/serve/index.ts";
import type { ServeNode } from "../../origin/serve/ports.ts";
import { openStore } from "../../origin/store/index.ts";
import { createTreeStateService } from "../../origin/treestate/service.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { decodeHead, headKey } from "../../proto/range/index.ts";

/**
 * The origin's serving stack (the same ChainView, sealed reader, tree-state service and RPC server
 * `lightedge origin` builds) over a generated store, with no node behind it: there is no 3.5 M-block
 * node here to follow, and `lightedge origin`'s bootstrap would check every range against one.
 * Sealed heights are served exactly as the origin serves them; node-only RPCs answer Unavailable.
 * `node bench/scale/origin-serve.ts STORE NETWORK` prints `LISTENING <url>` (bench/lib/spawn.ts).
 */
async function main(storeSpec: string, network: "mainnet" | "testnet" | "regtest"): Promise<void> {
  const store = openStore(storeSpec);
  const bytes = await store.get(headKey(network));
  if (!bytes) throw new Error(`no head for ${network} in ${storeSpec}`);
  const head = decodeHead(bytes);
  const sealed = createSealedReader(store, network, head.rangeSize);
  const chain = createChainView({
    tail: createTail(),
    sealed,
    rangeSize: head.rangeSize,
    head: () => head,
    floor: () => head.firstHeight,
    // GetBlock by hash from the store's hash index, as `lightedge origin` (no node to fall back on).
    resolveHeights: sealedHashResolver({ store, head: () => head }),
  });
  const node = new Proxy(
    {},
    {
      get: (_, name) =>
        name === "then"
          ? undefined
          : async () => {
              throw new LightedgeError(
                "unavailable",
                "scale-origin",
                `no node behind this origin (${String(name)})`,
              );
            },
    },
  ) as ServeNode;
  const server = await createOriginServer({
    chain,
    node,
    network,
    treeStates: createTreeStateService({ store, network, rangeSize: head.rangeSize }),
    listen: { host: "127.0.0.1", port: 0 },
  });
  process.stdout.write(`LISTENING ${server.url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main(process.argv[2]!, (process.argv[3] ?? "mainnet") as "mainnet").catch((err: unknown) => {
  process.stderr.write(`scale origin: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
