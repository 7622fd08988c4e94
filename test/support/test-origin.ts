import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { create, fromBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { LightedgeError, toConnectError } from "../../proto/errors.ts";
import {
  BalanceSchema,
  BlockIDSchema,
  type BlockRange,
  type CompactBlock,
  CompactBlockSchema,
  CompactTxSchema,
  CompactTxStreamer,
  GetAddressUtxosReplyListSchema,
  GetAddressUtxosReplySchema,
  RawTransactionSchema,
  SendResponseSchema,
  SubtreeRootSchema,
  TreeStateSchema,
} from "../../proto/index.ts";
import { filterCompactBlock, nullifiersOnly, poolSetFromRequest, SHIELDED_POOLS } from "../../proto/pools.ts";
import { readChainFile, readChainHex } from "./chain.ts";
import type { SeedBlock } from "./seed-ranges.ts";

/** The shared secret tests configure on both sides. */
export const TEST_ORIGIN_SECRET = "test-secret";

export interface TestOriginOptions {
  network: string;
  /** Every block of the network the origin knows (its tip is the last). */
  blocks: SeedBlock[];
  /** Flip a byte of this height's prevHash: a chain break for the edge to catch. */
  breakAt?: number;
}

export interface TestOrigin {
  url: string;
  /** Requests seen, by RPC name (proves what the edge proxied). */
  calls: Map<string, number>;
  stop(): Promise<void>;
}

/**
 * A small origin for edge tests: the real CompactTxStreamer over Connect (connect-node, HTTP/1.1),
 * serving blocks built by the real chain code from corpus data, and node-only RPCs with canned but
 * real-shaped answers (a real mainnet transaction, a real tree state). Checks the shared secret.
 */
export async function startTestOrigin(options: TestOriginOptions): Promise<TestOrigin> {
  const calls = new Map<string, number>();
  const handler = connectNodeAdapter({
    routes: (router) => routes(router, options),
    interceptors: [
      (next) => async (req) => {
        calls.set(req.method.name, (calls.get(req.method.name) ?? 0) + 1);
        if (req.header.get("x-lightedge-secret") !== TEST_ORIGIN_SECRET) {
          throw new ConnectError("missing or wrong x-lightedge-secret", Code.Unauthenticated);
        }
        return await next(req);
      },
    ],
  });
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function routes(router: ConnectRouter, o: TestOriginOptions): void {
  const byHeight = new Map(o.blocks.map((b) => [b.height, b]));
  const tip = o.blocks[o.blocks.length - 1]!;
  const decoded = (b: SeedBlock, bytes: Uint8Array): CompactBlock => {
    const block = fromBinary(CompactBlockSchema, bytes);
    if (b.height === o.breakAt) block.prevHash = block.prevHash.map((x, i) => (i === 0 ? x ^ 1 : x));
    return block;
  };
  const get = (rpc: string, height: number): SeedBlock => {
    const b = byHeight.get(height);
    if (b !== undefined) return b;
    const kind = height > tip.height ? "above-tip" : "not-found";
    throw toConnectError(
      rpc,
      new LightedgeError(kind, "test-origin", `no block at height ${height} (tip ${tip.height})`),
    );
  };
  const range = (rpc: string, nullifiers: boolean) =>
    async function* (req: BlockRange, _ctx: HandlerContext) {
      const start = Number(req.start?.height ?? 0n);
      const end = Number(req.end?.height ?? 0n);
      const pools = poolSetFromRequest(req.poolTypes);
      if (Math.max(start, end) > tip.height) {
        throw toConnectError(
          rpc,
          new LightedgeError(
            "above-tip",
            "test-origin",
            `height ${Math.max(start, end)} is above the tip ${tip.height}`,
          ),
        );
      }
      const step = start <= end ? 1 : -1;
      for (let h = start; h !== end + step; h += step) {
        const b = get(rpc, h);
        if (pools === SHIELDED_POOLS) yield decoded(b, nullifiers ? b.nullifiers : b.shielded);
        else {
          const filtered = filterCompactBlock(decoded(b, b.full), pools);
          yield nullifiers ? nullifiersOnly(filtered) : filtered;
        }
      }
    };
  const txHex = "tx/mainnet/2196438ebfefa0d1c254334b4e3c2f1f8d05e48ae069140256875214459f3593.hex";
  router.service(CompactTxStreamer, {
    getLatestBlock: () => create(BlockIDSchema, { height: BigInt(tip.height), hash: tip.wireHash }),
    getBlock: (id) => {
      if (id.hash.length > 0) {
        const b = o.blocks.find((x) => Buffer.from(x.wireHash).equals(Buffer.from(id.hash)));
        if (b === undefined) throw new ConnectError("GetBlock: no block with this hash", Code.NotFound);
        return decoded(b, b.full);
      }
      const b = get("GetBlock", Number(id.height));
      return decoded(b, b.full);
    },
    getBlockNullifiers: (id) => {
      const b = get("GetBlockNullifiers", Number(id.height));
      return decoded(b, b.nullifiers);
    },
    getBlockRange: range("GetBlockRange", false),
    getBlockRangeNullifiers: range("GetBlockRangeNullifiers", true),
    getTransaction: () => create(RawTransactionSchema, { data: readChainHex(txHex), height: 1n }),
    sendTransaction: (tx) =>
      create(SendResponseSchema, {
        errorCode: -26,
        errorMessage: `rejected ${tx.data.length}-byte transaction`,
      }),
    getTaddressBalance: (list) => create(BalanceSchema, { valueZat: BigInt(list.addresses.length * 1000) }),
    getTaddressTxids: async function* () {
      yield create(RawTransactionSchema, { data: readChainHex(txHex), height: 1n });
    },
    getTaddressTransactions: async function* () {
      yield create(RawTransactionSchema, { data: readChainHex(txHex), height: 1n });
    },
    getMempoolTx: async function* () {
      yield create(CompactTxSchema, { index: 0n, txid: new Uint8Array(32).fill(7) });
    },
    getMempoolStream: async function* () {
      yield create(RawTransactionSchema, { data: readChainHex(txHex), height: 0n });
    },
    getTreeState: (id) => treeState(Number(id.height)),
    getLatestTreeState: () => treeState(1000000),
    getSubtreeRoots: async function* (arg) {
      yield create(SubtreeRootSchema, {
        rootHash: new Uint8Array(32).fill(1),
        completingBlockHeight: BigInt(arg.startIndex + 1),
      });
    },
    getAddressUtxos: (arg) =>
      create(GetAddressUtxosReplyListSchema, {
        addressUtxos: arg.addresses.map((address) =>
          create(GetAddressUtxosReplySchema, { address, valueZat: 5n }),
        ),
      }),
    getAddressUtxosStream: async function* (arg) {
      for (const address of arg.addresses)
        yield create(GetAddressUtxosReplySchema, { address, valueZat: 5n });
    },
  });
}

function treeState(height: number) {
  const json = JSON.parse(readChainFile("treestate/mainnet/1000000.json").toString("utf8")) as Record<
    string,
    unknown
  >;
  return create(TreeStateSchema, {
    network: "main",
    height: BigInt(height),
    hash: String(json.hash ?? ""),
    time: Number(json.time ?? 0),
    saplingTree: String(json.saplingTree ?? json.tree ?? ""),
    orchardTree: String(json.orchardTree ?? ""),
  });
}
