import { fromBinary } from "@bufbuild/protobuf";
import { jubjub } from "@noble/curves/misc.js";
import { describe, expect, it } from "vitest";
import { PALLAS_B, PALLAS_P, Fp as PallasFp } from "../../origin/trees/pallas.ts";
import { CompactBlockSchema } from "../../proto/index.ts";
import { blockInfo, decodeRangeMeta, frameSpan, verifySection } from "../../proto/range/index.ts";
import { decodeTreeStateRange, legacyTreeSize, treeStateAt } from "../../proto/treestate/index.ts";
import { parseFinalState } from "../../proto/treestate/legacy-tree.ts";
import { pointPools } from "./points.ts";
import { blockHashAt, createRangeBuilder, treeSizeAfter } from "./range.ts";

// BLS12-381 scalar field (Jubjub's base field): Sapling's cmu must be below it (ZIP 216 canonical).
const BLS_R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

const le = (b: Uint8Array) => b.reduceRight((acc, x) => (acc << 8n) | BigInt(x), 0n);

function isPallasEncoding(b: Uint8Array): boolean {
  const x = le(b) & ((1n << 255n) - 1n);
  if (x >= PALLAS_P || b.every((v) => v === 0)) return false;
  try {
    PallasFp.sqrt(PallasFp.add(PallasFp.mul(PallasFp.sqr(x), x), PALLAS_B));
    return true;
  } catch {
    return false;
  }
}

const points = pointPools();
const build = createRangeBuilder({
  network: "mainnet",
  rangeSize: 100,
  payloadScale: 0.05,
  seed: "t",
  points,
});

describe("scale generator ranges", () => {
  // Range 19,000 at 100 blocks per range: heights 1,900,000–1,900,099, the spam era (both pools).
  const range = build(19_000);
  const get = (suffix: string) => range.objects.find((o) => o.key.endsWith(suffix))!.bytes;
  const meta = decodeRangeMeta(get(".meta.bin"));

  it("writes data objects the metadata describes", () => {
    for (const p of ["shielded", "full", "nullifiers"] as const) verifySection(meta, p, get(`.${p}.bin`));
    expect(meta.firstHeight).toBe(1_900_000);
    expect(range.objects.map((o) => o.key.split("/").pop())).toEqual([
      "00019000.shielded.bin",
      "00019000.full.bin",
      "00019000.nullifiers.bin",
      "00019000.meta.bin",
      "00019000.trees.bin",
    ]);
  });

  it("emits compact blocks a wallet accepts: canonical commitments and nullifiers, real epk points", () => {
    const shielded = get(".shielded.bin");
    let outputs = 0;
    let actions = 0;
    let previous = { sapling: treeSizeAfter(1_899_999, 1, 0.05), orchard: treeSizeAfter(1_899_999, 2, 0.05) };
    for (let h = 1_900_000; h < 1_900_100; h++) {
      const span = frameSpan(meta, "shielded", h);
      const block = fromBinary(
        CompactBlockSchema,
        shielded.subarray(span.offset + 5, span.offset + span.length),
      );
      expect(Number(block.height)).toBe(h);
      let o = 0;
      let a = 0;
      for (const tx of block.vtx) {
        for (const out of tx.outputs) {
          expect(le(out.cmu) < BLS_R).toBe(true);
          expect(() => jubjub.Point.fromBytes(out.ephemeralKey)).not.toThrow();
          expect(out.ciphertext.length).toBe(52);
          o++;
        }
        for (const act of tx.actions) {
          expect(le(act.nullifier) < PALLAS_P && le(act.cmx) < PALLAS_P).toBe(true);
          expect(isPallasEncoding(act.ephemeralKey)).toBe(true);
          a++;
        }
      }
      const sizes = blockInfo(meta, h).treeSizes;
      expect(sizes.sapling - previous.sapling).toBe(o);
      expect(sizes.orchard - previous.orchard).toBe(a);
      expect(block.chainMetadata?.saplingCommitmentTreeSize).toBe(sizes.sapling);
      previous = sizes;
      outputs += o;
      actions += a;
    }
    // The range's totals follow the checkpoint-anchored profile.
    expect(outputs).toBe(treeSizeAfter(1_900_099, 1, 0.05) - treeSizeAfter(1_899_999, 1, 0.05));
    expect(actions).toBe(treeSizeAfter(1_900_099, 2, 0.05) - treeSizeAfter(1_899_999, 2, 0.05));
    expect(outputs).toBeGreaterThan(100);
  });

  it("stores tree states whose frontiers have the shape of the metadata's tree sizes", () => {
    const trees = decodeTreeStateRange(get(".trees.bin"));
    for (const h of [1_900_000, 1_900_050, 1_900_099]) {
      const view = treeStateAt(trees, h);
      const sizes = blockInfo(meta, h).treeSizes;
      expect(legacyTreeSize(parseFinalState(view.saplingTree))).toBe(sizes.sapling);
      expect(legacyTreeSize(parseFinalState(view.orchardTree))).toBe(sizes.orchard);
      expect(view.hash).toBe(Buffer.from(blockInfo(meta, h).wireHash).reverse().toString("hex"));
    }
  });

  it("names every block by the hash blockHashAt gives for its height (what the scale node answers)", () => {
    for (const h of [1_900_000, 1_900_001, 1_900_057, 1_900_099])
      expect(Buffer.from(blockInfo(meta, h).wireHash)).toEqual(Buffer.from(blockHashAt("mainnet", "t", h)));
    expect(Buffer.from(meta.parentWireHash)).toEqual(Buffer.from(blockHashAt("mainnet", "t", 1_899_999)));
    const genesis = decodeRangeMeta(build(0).objects.find((o) => o.key.endsWith(".meta.bin"))!.bytes);
    expect(Buffer.from(blockInfo(genesis, 0).wireHash)).toEqual(Buffer.from(blockHashAt("mainnet", "t", 0)));
    expect(Buffer.from(blockInfo(genesis, 1).wireHash)).toEqual(Buffer.from(blockHashAt("mainnet", "t", 1)));
    expect(genesis.parentWireHash.every((b) => b === 0)).toBe(true);
    // Mainnet's leading zeros (display order), and distinct hashes.
    expect(blockHashAt("mainnet", "t", 5).subarray(29)).toEqual(new Uint8Array(3));
    expect(Buffer.from(blockHashAt("mainnet", "t", 5))).not.toEqual(
      Buffer.from(blockHashAt("mainnet", "t", 6)),
    );
  });

  it("chains ranges: a range's parent hash is the previous range's last block", () => {
    const before = decodeRangeMeta(build(18_999).objects.find((o) => o.key.endsWith(".meta.bin"))!.bytes);
    expect(Buffer.from(meta.parentWireHash)).toEqual(Buffer.from(blockInfo(before, 1_899_999).wireHash));
  });
});
