import { toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { toHex } from "../../proto/bytes.ts";
import { CompactBlockSchema } from "../../proto/index.ts";
import { ALL_POOLS, poolSet, SHIELDED_POOLS } from "../../proto/pools.ts";
import {
  corpusIndex,
  hasChain,
  missingChainMessage,
  readChainFile,
  readChainHex,
} from "../../test/support/chain.ts";
import {
  compactBlockBytes,
  type ParsedBlock,
  parseBlock,
  parseTransaction,
  projectBlock,
  toCompactBlock,
} from "./index.ts";
import { buildBlock } from "./testing.ts";

const sizes = { sapling: 72_999_499, orchard: 48_658_043, ironwood: 300 };
const bin = (b: ReturnType<typeof toCompactBlock>) => toBinary(CompactBlockSchema, b);

const everyPoolSet = Array.from({ length: 15 }, (_, i) =>
  poolSet({
    transparent: !!((i + 1) & 1),
    sapling: !!((i + 1) & 2),
    orchard: !!((i + 1) & 4),
    ironwood: !!((i + 1) & 8),
  }),
);

/** A v6 block whose second tx carries Ironwood actions (Orchard vector's bundle moved to field 19). */
function ironwoodBlock(): ParsedBlock {
  const vectors = JSON.parse(
    readChainFile("tx/v6/zcash-test-vectors-ironwood_v6_tx_hash-subset.json").toString(),
  );
  const orchardHex: string = vectors.vectors.find(
    (v: { scenario: string }) => v.scenario === "orchard_anchor_a",
  ).tx;
  const orchardTx = Uint8Array.from(Buffer.from(orchardHex, "hex"));
  const parsed = parseTransaction(orchardTx, { strictV6: false });
  const n = parsed.orchard!.actions.length;
  expect(n).toBeGreaterThan(0);
  expect(n).toBeLessThan(0xfd);
  const bundleStart = parsed.orchard!.actions[0]!.cv.byteOffset - orchardTx.byteOffset - 1;
  // v6 ends with the Ironwood count (0 here): move the Orchard bundle into the Ironwood slot.
  const moved = new Uint8Array(orchardTx.length);
  moved.set(orchardTx.subarray(0, bundleStart));
  moved[bundleStart] = 0;
  moved.set(orchardTx.subarray(bundleStart, orchardTx.length - 1), bundleStart + 1);
  const ironwoodTx = parseTransaction(moved, { strictV6: false });
  expect(ironwoodTx.orchard).toBeNull();
  expect(ironwoodTx.ironwood!.actions.length).toBe(n);
  const coinbase = readChainHex("tx/v6/mainnet-3431157-coinbase.hex");
  const header = readChainHex("blocks/mainnet/2222000.hex");
  const txids = [parseTransaction(coinbase).wireTxid, ironwoodTx.wireTxid];
  const { raw } = buildBlock(header, 140 + 3 + 1344, [coinbase, moved], txids);
  return parseBlock(raw, { strictV6: false });
}

describe.skipIf(!hasChain)(
  `CompactBlock projections (${hasChain ? "corpus present" : missingChainMessage})`,
  () => {
    const blocks = hasChain ? corpusIndex().blocks.map((b) => parseBlock(readChainHex(b.file))) : [];

    it("reproduces lightwalletd's golden compact blocks byte for byte (zero txids, empty chainMetadata)", () => {
      const golden = JSON.parse(readChainFile("compact/lightwalletd-compact_blocks.json").toString());
      expect(golden.length).toBe(6);
      for (const g of golden) {
        const block = parseBlock(Uint8Array.from(Buffer.from(g.full, "hex")));
        expect(block.height).toBe(g.block);
        const options = { projection: "full", zeroTxids: true } as const;
        expect(toHex(bin(toCompactBlock(block, options))), `${g.block}`).toBe(g.compact);
        expect(toHex(compactBlockBytes(block, options)), `${g.block}`).toBe(g.compact);
      }
    });

    it("hand-written encoder equals protobuf-es toBinary for every block and every stored projection", () => {
      for (const block of blocks) {
        for (const treeSizes of block.height % 2 ? [sizes] : [undefined]) {
          const p = projectBlock(block, treeSizes);
          const opts = treeSizes ? { treeSizes } : {};
          expect(p.full).toEqual(bin(toCompactBlock(block, { projection: "full", ...opts })));
          expect(p.shielded).toEqual(bin(toCompactBlock(block, { projection: SHIELDED_POOLS, ...opts })));
          expect(p.nullifiers).toEqual(bin(toCompactBlock(block, { projection: "nullifiers", ...opts })));
        }
      }
    });

    it("writes every byte of the buffer its allocator gives (slab views of dirty memory: same bytes)", () => {
      let slab = new Uint8Array(0);
      const dirty = (length: number) => {
        // A view in the middle of a larger slab full of 0xa5: neither zeroed nor at offset 0.
        slab = new Uint8Array(length + 16).fill(0xa5);
        return slab.subarray(8, 8 + length);
      };
      for (const block of blocks.filter((_, i) => i % 3 === 0)) {
        const fresh = projectBlock(block, sizes);
        const viaSlab = projectBlock(block, sizes, dirty);
        expect(viaSlab.full).toEqual(fresh.full);
        expect(viaSlab.shielded).toEqual(fresh.shielded);
        expect(viaSlab.nullifiers).toEqual(fresh.nullifiers);
        expect(slab[7]).toBe(0xa5); // the encoder stays inside its view
        expect(slab[slab.length - 8]).toBe(0xa5);
      }
    });

    it("hand-written encoder equals protobuf-es for all 15 pool sets, with and without nullifier pruning", () => {
      for (const block of blocks.filter((_, i) => i % 5 === 0)) {
        for (const projection of [...everyPoolSet, "full" as const]) {
          for (const nullifiers of [false, true]) {
            const options = { projection, nullifiers, treeSizes: sizes };
            expect(compactBlockBytes(block, options)).toEqual(bin(toCompactBlock(block, options)));
          }
        }
      }
    });

    it("keeps every tx in the full projection but drops component-less txs with all four pools", () => {
      const bare = (t: ParsedBlock["txs"][number]) =>
        t.vin.length + t.vout.length + t.sapling.spends.length + t.sapling.outputs.length === 0 &&
        t.orchard === null;
      const sprout = blocks.filter((b) => b.txs.some((t) => t.joinSplitCount > 0 && bare(t)));
      expect(sprout.length).toBeGreaterThan(0);
      for (const block of sprout) {
        const full = toCompactBlock(block, { projection: "full" });
        const all = toCompactBlock(block, { projection: ALL_POOLS });
        expect(full.vtx.length).toBe(block.txs.length);
        expect(all.vtx.length).toBeLessThan(full.vtx.length);
      }
    });

    it("puts Ironwood actions in field 9 and keeps them in the shielded and nullifier projections", () => {
      const block = ironwoodBlock();
      expect(block.height).toBe(3_431_157);
      const full = toCompactBlock(block, { projection: "full" });
      const tx = full.vtx[1]!;
      expect(tx.actions).toEqual([]);
      expect(tx.ironwoodActions.length).toBe(block.txs[1]!.ironwood!.actions.length);
      expect(tx.ironwoodActions[0]!.ciphertext.length).toBe(52);
      const p = projectBlock(block, sizes);
      const shielded = toCompactBlock(block, { projection: SHIELDED_POOLS, treeSizes: sizes });
      expect(p.full).toEqual(
        bin(full.vtx.length ? toCompactBlock(block, { projection: "full", treeSizes: sizes }) : full),
      );
      expect(p.shielded).toEqual(bin(shielded));
      expect(shielded.vtx.map((t) => t.index)).toEqual([1n]);
      expect(shielded.vtx[0]!.ironwoodActions).toEqual(tx.ironwoodActions);
      // Field 9, wire type 2: tag byte 0x4a precedes each action inside the tx.
      const txBytes = toBinary(CompactBlockSchema, shielded).subarray(0);
      expect(toHex(txBytes)).toContain(`4a9c010a20${toHex(block.txs[1]!.ironwood!.actions[0]!.nullifier)}`);
      const nf = toCompactBlock(block, { projection: "nullifiers" });
      expect(nf.vtx[0]!.ironwoodActions[0]!.cmx.length).toBe(0);
      expect(nf.vtx[0]!.ironwoodActions[0]!.nullifier).toEqual(tx.ironwoodActions[0]!.nullifier);
      expect(p.nullifiers).toEqual(bin(nf));
    });

    it("omits Ironwood actions when the requested pools leave Ironwood out", () => {
      const block = ironwoodBlock();
      const orchardOnly = toCompactBlock(block, {
        projection: poolSet({ ...SHIELDED_POOLS, ironwood: false }),
      });
      expect(orchardOnly.vtx).toEqual([]);
    });
  },
);
