import { env } from "cloudflare:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { displayHex } from "../../proto/bytes.ts";
import { BlockRangeSchema, CompactBlockSchema } from "../../proto/index.ts";
import { encodeHead, encodeSealedRange, headKey, rangeKeys } from "../../proto/range/index.ts";
import type { Env } from "../env.ts";
import { clientsFor, collect } from "../testing/clients.ts";
import { b64, type EdgeFixture, fixture, testEnv } from "../testing/fixture.ts";

const f = fixture as EdgeFixture;
const NET = "regtest";

/** A "regtest" copy of three real mainnet ranges, each damaged differently. */
async function seedDamaged(): Promise<void> {
  const bucket = (env as unknown as Env).BLOCKS!;
  const blocks = f.seed.blocks.mainnet!;
  const encode = (index: number) =>
    encodeSealedRange({
      network: NET,
      rangeSize: 10,
      index,
      blocks: blocks
        .filter((b) => Math.floor(b.height / 10) === index)
        .map((b) => ({
          height: b.height,
          wireHash: b64(b.hash),
          wirePrevHash: b64(b.prevHash),
          time: 0,
          treeSizes: { sapling: 0, orchard: 0, ironwood: 0 },
          messages: { full: b64(b.full), shielded: b64(b.shielded), nullifiers: b64(b.nullifiers) },
        })),
    });
  const r0 = encode(66315);
  const k0 = rangeKeys(NET, 10, 66315);
  await bucket.put(k0.meta, r0.meta);
  await bucket.put(k0.data.full, r0.data.full);
  await bucket.put(k0.data.shielded, r0.data.shielded.subarray(0, r0.data.shielded.length - 1));
  const r1 = encode(66316);
  const flipped = r1.meta.slice();
  flipped[100] = flipped[100]! ^ 0xff;
  await bucket.put(rangeKeys(NET, 10, 66316).meta, flipped);
  const tip = blocks.find((b) => b.height === 663179)!;
  const head = {
    format: "lightedge-head" as const,
    version: 1,
    network: NET,
    rangeSize: 10,
    firstHeight: 663150,
    rangeCount: 3,
    tip: { height: 663179, displayHash: displayHex(b64(tip.hash)), time: 0 },
    updatedAt: new Date(0).toISOString(),
    lightdInfo: {
      chainName: "regtest",
      saplingActivationHeight: 1,
      consensusBranchId: "",
      blockHeight: 663179,
      estimatedHeight: 663179,
      upgradeName: "",
      upgradeHeight: 0,
      zcashdBuild: "",
      zcashdSubversion: "",
    },
  };
  await bucket.put(headKey(NET), encodeHead(head));
}

const range = (a: number, b: number) =>
  create(BlockRangeSchema, { start: { height: BigInt(a) }, end: { height: BigInt(b) } });

describe.skipIf(fixture === null)("damaged stored objects", () => {
  beforeAll(seedDamaged);
  const [, client] = clientsFor(testEnv("none", { NETWORKS: `${NET},mainnet` }))[0]!;

  it("still serves the intact projection of a damaged range", async () => {
    const got = await client.getBlock({ height: 663152n });
    expect(toBinary(CompactBlockSchema, got)).toEqual(
      b64(f.seed.blocks.mainnet!.find((b) => b.height === 663152)!.full),
    );
  });

  it("answers DataLoss for a truncated data object, a corrupt metadata object and a missing range", async () => {
    for (const [a, b] of [
      [663150, 663155],
      [663160, 663161],
      [663175, 663176],
    ] as const) {
      const { items, error } = await collect(client.getBlockRange(range(a, b)));
      expect(items).toEqual([]);
      expect(ConnectError.from(error).code).toBe(Code.DataLoss);
      expect(ConnectError.from(error).rawMessage).toMatch(/^GetBlockRange: /);
    }
  });

  it("ends a stream already under way with DataLoss when it reaches the damage", async () => {
    const { items, error } = await collect(client.getBlockRange(range(663179, 663158)));
    expect(ConnectError.from(error).code).toBe(Code.DataLoss);
    expect(items).toEqual([]);
  });
});
