import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { LightedgeError } from "./errors.ts";
import {
  ChainMetadataSchema,
  CompactBlockSchema,
  CompactOrchardActionSchema,
  CompactSaplingOutputSchema,
  CompactSaplingSpendSchema,
  CompactTxSchema,
  PoolType,
  TxOutSchema,
} from "./index.ts";
import {
  ALL_POOLS,
  filterCompactBlock,
  nullifiersOnly,
  poolSetFromNames,
  poolSetFromRequest,
  SHIELDED_POOLS,
  storedProjectionFor,
} from "./pools.ts";

const b32 = (n: number) => new Uint8Array(32).fill(n);
const action = (n: number) =>
  create(CompactOrchardActionSchema, {
    nullifier: b32(n),
    cmx: b32(n + 1),
    ephemeralKey: b32(n + 2),
    ciphertext: new Uint8Array(52),
  });

function sampleBlock() {
  return create(CompactBlockSchema, {
    height: 10n,
    hash: b32(1),
    prevHash: b32(2),
    time: 5,
    vtx: [
      create(CompactTxSchema, {
        index: 0n,
        txid: b32(3),
        vout: [create(TxOutSchema, { value: 5n, scriptPubKey: b32(9) })],
      }),
      create(CompactTxSchema, {
        index: 1n,
        txid: b32(4),
        spends: [create(CompactSaplingSpendSchema, { nf: b32(5) })],
        outputs: [
          create(CompactSaplingOutputSchema, {
            cmu: b32(6),
            ephemeralKey: b32(7),
            ciphertext: new Uint8Array(52),
          }),
        ],
      }),
      create(CompactTxSchema, {
        index: 2n,
        txid: b32(8),
        actions: [action(10)],
        ironwoodActions: [action(20)],
      }),
      create(CompactTxSchema, { index: 3n, txid: b32(11) }), // a Sprout-only tx: no components
    ],
    chainMetadata: create(ChainMetadataSchema, {
      saplingCommitmentTreeSize: 7,
      orchardCommitmentTreeSize: 8,
    }),
  });
}

describe("pool sets", () => {
  it("treats empty poolTypes as Sapling + Orchard + Ironwood", () => {
    expect(poolSetFromRequest([])).toBe(SHIELDED_POOLS);
    expect(SHIELDED_POOLS).toEqual({ transparent: false, sapling: true, orchard: true, ironwood: true });
  });

  it("returns the same frozen instance for the same set, whatever the order or repeats", () => {
    const a = poolSetFromRequest([PoolType.ORCHARD, PoolType.TRANSPARENT]);
    expect(poolSetFromRequest([PoolType.TRANSPARENT, PoolType.ORCHARD, PoolType.ORCHARD])).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(poolSetFromNames(["transparent", "sapling", "orchard", "ironwood"])).toBe(ALL_POOLS);
  });

  it("rejects POOL_TYPE_INVALID and unknown values as bad requests", () => {
    for (const bad of [[PoolType.POOL_TYPE_INVALID], [PoolType.SAPLING, 9 as PoolType]]) {
      expect(() => poolSetFromRequest(bad)).toThrow(LightedgeError);
      try {
        poolSetFromRequest(bad);
      } catch (err) {
        expect((err as LightedgeError).kind).toBe("bad-request");
      }
    }
  });

  it("maps only Sapling + Orchard + Ironwood to a stored projection", () => {
    expect(storedProjectionFor(SHIELDED_POOLS)).toBe("shielded");
    // All four pools drop component-less txs, which GetBlock's "full" keeps: not byte-identical.
    expect(storedProjectionFor(ALL_POOLS)).toBeNull();
    expect(storedProjectionFor(poolSetFromNames(["sapling"]))).toBeNull();
  });
});

describe("filterCompactBlock", () => {
  it("keeps only requested components and drops txs left empty, keeping index and txid", () => {
    const out = filterCompactBlock(sampleBlock(), poolSetFromNames(["orchard"]));
    expect(out.vtx.map((t) => t.index)).toEqual([2n]);
    expect(out.vtx[0]!.actions.length).toBe(1);
    expect(out.vtx[0]!.ironwoodActions).toEqual([]);
    expect(out.vtx[0]!.txid).toEqual(b32(8));
    expect(out.chainMetadata!.saplingCommitmentTreeSize).toBe(7);
  });

  it("drops a component-less tx even with all four pools, unlike the full block", () => {
    const block = sampleBlock();
    expect(filterCompactBlock(block, ALL_POOLS).vtx.map((t) => t.index)).toEqual([0n, 1n, 2n]);
    expect(block.vtx.length).toBe(4);
  });

  it("never drops the block itself", () => {
    const out = filterCompactBlock(sampleBlock(), poolSetFromNames(["ironwood"]));
    expect(out.height).toBe(10n);
    expect(out.vtx.map((t) => t.index)).toEqual([2n]);
    const none = filterCompactBlock(create(CompactBlockSchema, { height: 3n }), SHIELDED_POOLS);
    expect(none.height).toBe(3n);
    expect(none.vtx).toEqual([]);
  });
});

describe("nullifiersOnly", () => {
  it("keeps spends and action nullifiers, drops outputs and transparent data, zeroes tree sizes", () => {
    const out = nullifiersOnly(sampleBlock());
    expect(out.vtx.length).toBe(4);
    expect(out.vtx[0]!.vout).toEqual([]);
    expect(out.vtx[1]!.spends[0]!.nf).toEqual(b32(5));
    expect(out.vtx[1]!.outputs).toEqual([]);
    expect(out.vtx[2]!.actions[0]!.nullifier).toEqual(b32(10));
    expect(out.vtx[2]!.actions[0]!.cmx.length).toBe(0);
    expect(out.vtx[2]!.ironwoodActions[0]!.nullifier).toEqual(b32(20));
    expect(out.chainMetadata).toBeDefined();
    expect(out.chainMetadata!.saplingCommitmentTreeSize).toBe(0);
    expect(out.chainMetadata!.orchardCommitmentTreeSize).toBe(0);
  });
});
