import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { displayHex } from "../../proto/bytes.ts";
import { ShieldedProtocol } from "../../proto/index.ts";
import { encodeHead, encodeSealedRange, headKey, rangeKeys } from "../../proto/range/index.ts";
import { syntheticRange } from "../../proto/range/testing.ts";
import { encodeSubtreeRoots, subtreeChunkKey } from "../../proto/treestate/index.ts";
import type { Env } from "../env.ts";
import { clientsFor, collect } from "../testing/clients.ts";
import { testEnv } from "../testing/fixture.ts";

const NET = "subtree-order";
const RANGE = 4;

/**
 * One sealed range whose last blocks' Ironwood tree passes 2^16 leaves at block 2, and the Ironwood
 * subtree chunk the origin stores for it (completing hash in wire order, as stored).
 */
async function seed() {
  const bucket = (env as unknown as Env).BLOCKS!;
  const input = syntheticRange({ network: NET, rangeSize: RANGE, index: 0 });
  input.blocks.forEach((b, i) => {
    b.treeSizes = { sapling: 0, orchard: 0, ironwood: i >= 2 ? 65_536 + i : 65_530 + i };
  });
  const encoded = encodeSealedRange(input);
  const keys = rangeKeys(NET, RANGE, 0);
  await bucket.put(keys.meta, encoded.meta);
  for (const [p, bytes] of Object.entries(encoded.data)) await bucket.put(keys.data[p as "full"], bytes);
  const last = input.blocks[RANGE - 1]!;
  await bucket.put(
    headKey(NET),
    encodeHead({
      format: "lightedge-head",
      version: 1,
      network: NET,
      rangeSize: RANGE,
      firstHeight: 0,
      rangeCount: 1,
      tip: { height: last.height, displayHash: displayHex(last.wireHash), time: last.time },
      updatedAt: new Date(0).toISOString(),
      lightdInfo: {
        chainName: "regtest",
        saplingActivationHeight: 1,
        consensusBranchId: "",
        blockHeight: last.height,
        estimatedHeight: last.height,
        upgradeName: "",
        upgradeHeight: 0,
        zcashdBuild: "",
        zcashdSubversion: "",
      },
    }),
  );
  const completing = input.blocks[2]!;
  const root = Uint8Array.from({ length: 32 }, (_, i) => (i * 7 + 1) & 0x3f);
  await bucket.put(
    subtreeChunkKey(NET, "ironwood", 0, 1),
    encodeSubtreeRoots({
      pool: "ironwood",
      firstIndex: 0,
      roots: [{ root, completingHeight: 2, completingWireHash: completing.wireHash }],
    }),
  );
  return { root, wireHash: completing.wireHash };
}

describe("GetSubtreeRoots from stored chunks at the edge", () => {
  it("serves the Ironwood root the origin stored, completingBlockHash in display order as lightwalletd", async () => {
    const { root, wireHash } = await seed();
    for (const [name, client] of clientsFor(testEnv("none", { NETWORKS: NET }))) {
      const got = await collect(client.getSubtreeRoots({ shieldedProtocol: ShieldedProtocol.ironwood }));
      expect([name, got.error]).toEqual([name, undefined]);
      expect(got.items.map((r) => [r.rootHash, r.completingBlockHeight])).toEqual([[root, 2n]]);
      // lightwalletd frontend/service.go: CompletingBlockHash = hash32.ReverseSlice(block.Hash).
      expect(Buffer.from(got.items[0]!.completingBlockHash).toString("hex")).toBe(displayHex(wireHash));
      expect(Buffer.from(got.items[0]!.completingBlockHash)).toEqual(Buffer.from(wireHash).reverse());
      const sapling = await collect(client.getSubtreeRoots({ shieldedProtocol: ShieldedProtocol.sapling }));
      expect(sapling).toEqual({ items: [] });
    }
  });
});
