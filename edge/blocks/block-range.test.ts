import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { concatBytes } from "../../proto/bytes.ts";
import { encodeFrame } from "../../proto/frame.ts";
import { BlockRangeSchema, CompactBlockSchema, PoolType } from "../../proto/index.ts";
import { filterCompactBlock, nullifiersOnly, poolSetFromRequest } from "../../proto/pools.ts";
import { clientsFor, collect } from "../testing/clients.ts";
import { b64, type EdgeFixture, fetchWith, fixture, seedBucket, testEnv } from "../testing/fixture.ts";

const f = fixture as EdgeFixture;
const blocksOf = (network: string) => f.seed.blocks[network]!;
const range = (start: number, end: number, poolTypes: PoolType[] = []) =>
  create(BlockRangeSchema, { start: { height: BigInt(start) }, end: { height: BigInt(end) }, poolTypes });
const heights = (from: number, to: number) => {
  const out: number[] = [];
  for (let h = from; h !== to + (from <= to ? 1 : -1); h += from <= to ? 1 : -1) out.push(h);
  return out;
};
const expected = (network: string, hs: number[], projection: "shielded" | "nullifiers" | "full") =>
  hs.map((h) => b64(blocksOf(network).find((b) => b.height === h)![projection]));

describe.skipIf(fixture === null)("GetBlockRange from sealed ranges", () => {
  beforeAll(seedBucket);
  const env = testEnv("good");
  const tip = () => f.seed.tips.mainnet!;

  describe.each(clientsFor(env))("over %s", (_name, client) => {
    it("streams an ascending range across range objects byte-exact to the shielded projection", async () => {
      const hs = heights(663153, 663187);
      const { items, error } = await collect(client.getBlockRange(range(663153, 663187)));
      expect(error).toBeUndefined();
      expect(items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(expected("mainnet", hs, "shielded"));
    });

    it("streams a descending range in descending order", async () => {
      const hs = heights(663188, 663151);
      const { items } = await collect(client.getBlockRange(range(663188, 663151)));
      expect(items.map((b) => Number(b.height))).toEqual(hs);
      expect(items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(expected("mainnet", hs, "shielded"));
    });

    it("continues from the origin's tail past the sealed tip, both directions", async () => {
      const up = heights(tip() - 12, tip() + 20);
      const asc = await collect(client.getBlockRange(range(up[0]!, up[up.length - 1]!)));
      expect(asc.error).toBeUndefined();
      expect(asc.items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(
        expected("mainnet", up, "shielded"),
      );
      const down = [...up].reverse();
      const desc = await collect(client.getBlockRange(range(down[0]!, down[down.length - 1]!)));
      expect(desc.items.map((b) => Number(b.height))).toEqual(down);
    });

    it("serves the testnet when the base URL names it", async () => {
      const [, testnet] = clientsFor(env, "https://edge.test/testnet").find(([n]) => n === _name)!;
      const hs = heights(1028405, 1028590);
      const { items, error } = await collect(testnet.getBlockRange(range(1028405, 1028590)));
      expect(error).toBeUndefined();
      expect(items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(expected("testnet", hs, "shielded"));
    });

    it("streams the stored nullifier projection for GetBlockRangeNullifiers", async () => {
      const hs = heights(663160, 663175);
      const { items } = await collect(client.getBlockRangeNullifiers(range(663160, 663175)));
      expect(items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(
        expected("mainnet", hs, "nullifiers"),
      );
    });

    it("projects pool sets nobody stores from the full projection", async () => {
      const hs = heights(663150, 663165);
      const pools = [PoolType.TRANSPARENT, PoolType.SAPLING];
      const { items } = await collect(client.getBlockRange(range(663150, 663165, pools)));
      const want = expected("mainnet", hs, "full").map((bytes) =>
        toBinary(
          CompactBlockSchema,
          filterCompactBlock(fromBinary(CompactBlockSchema, bytes), poolSetFromRequest(pools)),
        ),
      );
      expect(items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(want);
      const nf = await collect(client.getBlockRangeNullifiers(range(663165, 663150, [PoolType.ORCHARD])));
      const wantNf = expected("mainnet", [...hs].reverse(), "full").map((bytes) =>
        toBinary(
          CompactBlockSchema,
          nullifiersOnly(
            filterCompactBlock(fromBinary(CompactBlockSchema, bytes), poolSetFromRequest([PoolType.ORCHARD])),
          ),
        ),
      );
      expect(nf.items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(wantNf);
    });

    it("refuses a range without an end, or with POOL_TYPE_INVALID, as InvalidArgument", async () => {
      const noEnd = await collect(
        client.getBlockRange(create(BlockRangeSchema, { start: { height: 663150n } })),
      );
      expect(ConnectError.from(noEnd.error).code).toBe(Code.InvalidArgument);
      expect(ConnectError.from(noEnd.error).rawMessage).toMatch(/^GetBlockRange: /);
      const bad = await collect(client.getBlockRange(range(663150, 663151, [PoolType.POOL_TYPE_INVALID])));
      expect(ConnectError.from(bad.error).code).toBe(Code.InvalidArgument);
    });

    it("streams what exists up to the origin's tip, then OutOfRange (as lightwalletd)", async () => {
      const originTip = blocksOf("mainnet")[blocksOf("mainnet").length - 1]!.height;
      for (const rpc of ["getBlockRange", "getBlockRangeNullifiers"] as const) {
        const { items, error } = await collect(client[rpc](range(originTip - 2, originTip + 5)));
        expect(items.map((b) => Number(b.height))).toEqual(heights(originTip - 2, originTip));
        expect(ConnectError.from(error).code).toBe(Code.OutOfRange);
      }
      // Descending from above the tip: the first height due does not exist, so nothing is sent.
      const down = await collect(client.getBlockRange(range(originTip + 5, originTip - 2)));
      expect(down.items).toEqual([]);
      expect(ConnectError.from(down.error).code).toBe(Code.OutOfRange);
    });
  });

  it("sends the stored frames and a gRPC-web trailer as the raw body", async () => {
    const body = encodeFrame(toBinary(BlockRangeSchema, range(663150, 663159)));
    const res = await fetchWith(env)(
      "https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetBlockRange",
      {
        method: "POST",
        headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1" },
        body: body as Uint8Array<ArrayBuffer>,
      },
    );
    const bytes = new Uint8Array(await res.arrayBuffer());
    const frames = expected("mainnet", heights(663150, 663159), "shielded").map((m) => encodeFrame(m));
    const stored = concatBytes(frames);
    expect(bytes.subarray(0, stored.length)).toEqual(stored);
    expect(new TextDecoder().decode(bytes.subarray(stored.length + 5))).toMatch(/grpc-status: ?0/);
  });
});

describe.skipIf(fixture === null)("GetBlockRange when the origin misbehaves", () => {
  beforeAll(seedBucket);
  const [, down] = clientsFor(testEnv("down"))[0]!;
  const [, none] = clientsFor(testEnv("none"))[0]!;
  const [, seam] = clientsFor(testEnv("brokenAtSeam"))[0]!;
  const [, tail] = clientsFor(testEnv("brokenInTail"))[0]!;
  const tip = () => f.seed.tips.mainnet!;

  it("keeps streaming sealed data with the origin down", async () => {
    const { items, error } = await collect(down.getBlockRange(range(663150, tip())));
    expect(error).toBeUndefined();
    expect(items.length).toBe(tip() - 663150 + 1);
  });

  it("answers Unavailable within a second when a range needs the down origin", async () => {
    const t0 = Date.now();
    const { error } = await collect(down.getBlockRange(range(tip() - 5, tip() + 5)));
    expect(ConnectError.from(error).code).toBe(Code.Unavailable);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it("answers Unavailable after about a second when the origin accepts but never answers", async () => {
    const [, hung] = clientsFor(testEnv("hung"))[0]!;
    const t0 = Date.now();
    const { items, error } = await collect(hung.getBlockRange(range(tip() - 2, tip() + 2)));
    expect(items).toEqual([]);
    expect(ConnectError.from(error).code).toBe(Code.Unavailable);
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it("streams up to the sealed tip, then OutOfRange, when no origin is configured", async () => {
    const { items, error } = await collect(none.getBlockRange(range(tip() - 2, tip() + 5)));
    expect(items.map((b) => Number(b.height))).toEqual(heights(tip() - 2, tip()));
    expect(ConnectError.from(error).code).toBe(Code.OutOfRange);
    const above = await collect(none.getBlockRange(range(tip() + 1, tip() + 5)));
    expect(above.items).toEqual([]);
    expect(ConnectError.from(above.error).code).toBe(Code.OutOfRange);
    const down = await collect(none.getBlockRangeNullifiers(range(tip() + 5, tip() - 2)));
    expect(down.items).toEqual([]);
    expect(ConnectError.from(down.error).code).toBe(Code.OutOfRange);
  });

  it("aborts at a prevHash break at the seam and inside the tail", async () => {
    const atSeam = await collect(seam.getBlockRange(range(tip() - 3, tip() + 3)));
    expect(ConnectError.from(atSeam.error).code).toBe(Code.Aborted);
    expect(atSeam.items.map((b) => Number(b.height))).toEqual(heights(tip() - 3, tip()));
    const inTail = await collect(tail.getBlockRange(range(tip() - 3, tip() + 10)));
    expect(ConnectError.from(inTail.error).code).toBe(Code.Aborted);
    expect(inTail.items.map((b) => Number(b.height))).toEqual(heights(tip() - 3, tip() + 4));
  });
});
