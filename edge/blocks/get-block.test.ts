import { env as cfEnv } from "cloudflare:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { BlockIDSchema, CompactBlockSchema } from "../../proto/index.ts";
import { nullifiersOnly } from "../../proto/pools.ts";
import { decodeHead, encodeHead } from "../../proto/range/index.ts";
import type { Env } from "../env.ts";
import { clientsFor } from "../testing/clients.ts";
import { b64, type EdgeFixture, fetchWith, fixture, seedBucket, testEnv } from "../testing/fixture.ts";
import { MAX_HASH_SCAN_RANGES } from "./find-hash.ts";

const f = fixture as EdgeFixture;
const block = (h: number) => f.seed.blocks.mainnet!.find((b) => b.height === h)!;

describe.skipIf(fixture === null)("GetBlock and GetBlockNullifiers", () => {
  beforeAll(seedBucket);
  const env = testEnv("good");
  const tip = () => f.seed.tips.mainnet!;

  describe.each(clientsFor(env))("over %s", (_name, client) => {
    it("answers a sealed height with the stored full projection", async () => {
      const got = await client.getBlock({ height: 663171n });
      expect(toBinary(CompactBlockSchema, got)).toEqual(b64(block(663171).full));
      // Every transaction of the block stays, pruned to nullifiers (lightwalletd GetBlockNullifiers),
      // unlike the stored range projection, which keeps shielded transactions only.
      const full = fromBinary(CompactBlockSchema, b64(block(663171).full));
      const nf = await client.getBlockNullifiers({ height: 663171n });
      expect(toBinary(CompactBlockSchema, nf)).toEqual(toBinary(CompactBlockSchema, nullifiersOnly(full)));
      expect(nf.vtx.length).toBe(full.vtx.length);
    });

    it("answers a tail height from the origin", async () => {
      const got = await client.getBlock({ height: BigInt(tip() + 3) });
      expect(toBinary(CompactBlockSchema, got)).toEqual(b64(block(tip() + 3).full));
    });

    it("finds a sealed block by its hash in either byte order", async () => {
      const hash = b64(block(663165).hash);
      const wire = await client.getBlock({ hash });
      expect(Number(wire.height)).toBe(663165);
      const display = await client.getBlock({ hash: hash.slice().reverse() });
      expect(Number(display.height)).toBe(663165);
    });

    it("says OutOfRange above the tip and InvalidArgument for a short hash", async () => {
      await expect(client.getBlock({ height: 99_999_999n })).rejects.toMatchObject({ code: Code.OutOfRange });
      const err = await client.getBlock({ hash: new Uint8Array(5) }).catch((e) => ConnectError.from(e));
      expect(err).toMatchObject({ code: Code.InvalidArgument });
      // Worded as the origin words it (proto/wire/limits.ts checkBlockHash), whichever answers.
      expect((err as ConnectError).rawMessage).toBe("GetBlock: a block hash has 32 bytes");
    });
  });

  it("finds any sealed block by hash from the store's hash index, with no origin configured", async () => {
    // The oldest testnet ranges are further back than the newest-metadata scan reaches
    // (MAX_HASH_SCAN_RANGES): only the index can answer, and there is no origin to ask.
    const testnet = f.seed.blocks.testnet!;
    const sealed = testnet.filter((b) => b.height <= f.seed.tips.testnet!);
    expect(sealed.length).toBeGreaterThan(MAX_HASH_SCAN_RANGES * 10);
    for (const [name, client] of clientsFor(testEnv("none"), "https://edge.test/testnet")) {
      for (const b of [sealed[0]!, sealed[37]!, sealed[sealed.length - 1]!]) {
        const got = await client.getBlock({ hash: b64(b.hash).reverse() });
        expect(toBinary(CompactBlockSchema, got), name).toEqual(b64(b.full));
      }
      // A hash the index does not hold: NotFound, asked of no one.
      const err = await client
        .getBlock({ hash: new Uint8Array(32).fill(7) })
        .catch((e) => ConnectError.from(e));
      expect(err, name).toMatchObject({ code: Code.NotFound });
      // A tail block is not sealed, and there is no origin for it either.
      const tail = testnet.find((b) => b.height === f.seed.tips.testnet! + 1)!;
      const tailErr = await client.getBlock({ hash: b64(tail.hash) }).catch((e) => ConnectError.from(e));
      expect(tailErr, name).toMatchObject({ code: Code.NotFound });
    }
  });

  it("without an index in the head (an older store), finds recent sealed hashes and asks the origin for the rest", async () => {
    // The testnet seed under another prefix, its head as a writer before the index left it.
    const bucket = (cfEnv as unknown as Env).BLOCKS!;
    for (const [key, value] of Object.entries(f.seed.objects)) {
      if (!key.startsWith("v1/testnet/") || key.includes("/hash/")) continue;
      let bytes = b64(value);
      if (key.endsWith("head.json")) {
        const { hashIndex: _, ...older } = decodeHead(bytes);
        bytes = encodeHead(older);
      }
      await bucket.put(`legacy/${key}`, bytes);
    }
    const sealed = f.seed.blocks.testnet!.filter((b) => b.height <= f.seed.tips.testnet!);
    const [, noOrigin] = clientsFor(
      testEnv("none", { STORE_PREFIX: "legacy" }),
      "https://edge.test/testnet",
    )[0]!;
    const recent = sealed[sealed.length - 3]!;
    expect(Number((await noOrigin.getBlock({ hash: b64(recent.hash) })).height)).toBe(recent.height);
    const err = await noOrigin.getBlock({ hash: b64(sealed[0]!.hash) }).catch((e) => ConnectError.from(e));
    expect(err).toMatchObject({ code: Code.NotFound });
    const [, withOrigin] = clientsFor(
      testEnv("good", { STORE_PREFIX: "legacy" }),
      "https://edge.test/testnet",
    )[0]!;
    expect(Number((await withOrigin.getBlock({ hash: b64(sealed[0]!.hash) })).height)).toBe(
      sealed[0]!.height,
    );
  });

  it("answers a Connect GET with the bare protobuf, cacheable for a year", async () => {
    const message = base64Encode(toBinary(BlockIDSchema, create(BlockIDSchema, { height: 663155n })), "url");
    const res = await fetchWith(env)(
      `https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetBlock?connect=v1&encoding=proto&base64=1&message=${message}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("immutable");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(b64(block(663155).full));
  });
});
