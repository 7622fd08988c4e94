import { Field } from "@noble/curves/abstract/modular.js";
import { jubjub } from "@noble/curves/misc.js";
import { describe, expect, it } from "vitest";
import { leBytesToBigint } from "../../proto/bytes.ts";
import { type ParsedTx, parseTransaction } from "../chain/index.ts";
import { JUBJUB_BASE, PALLAS_P } from "./points.ts";
import { blockEra, syntheticBody } from "./synthetic-block.ts";

/**
 * Every compact field of synthetic blocks decodes the way a wallet decodes it: Sapling cmu a
 * canonical BLS12-381 scalar (sapling-crypto `ExtractedNoteCommitment::from_bytes`), Sapling epk a
 * canonical prime-order Jubjub point (`SaplingDomain::epk`, ZIP 216), Orchard/Ironwood nf and cmx
 * canonical Pallas base field elements and epk a canonical non-identity Pallas point (orchard
 * `Nullifier::from_bytes`, `ExtractedNoteCommitment::from_bytes`, `EphemeralPublicKey::from_bytes`).
 * Decoded independently of the builder with @noble/curves.
 */
const Fp = Field(PALLAS_P);

/** Keys already decoded (the builder draws them from a table of a few thousand points). */
const seen = new Set<string>();
const once = (b: Uint8Array, check: (b: Uint8Array) => void) => {
  const key = Buffer.from(b).toString("hex");
  if (seen.has(key)) return;
  check(b);
  seen.add(key);
};

function decodeJubjub(b: Uint8Array) {
  const p = jubjub.Point.fromBytes(b, false); // zip215 = false: canonical encodings only
  expect(p.is0()).toBe(false);
  expect(p.isTorsionFree()).toBe(true);
  expect(p.isSmallOrder()).toBe(false);
  expect(Buffer.from(p.toBytes()).equals(Buffer.from(b))).toBe(true);
}

/** pasta_curves `Point::from_bytes`: x canonical, x³ + 5 a square (Euler's criterion), not the identity (all zeros). */
function decodePallas(b: Uint8Array) {
  const xb = b.slice();
  xb[31]! &= 0x7f;
  const x = leBytesToBigint(xb);
  expect(x < PALLAS_P).toBe(true);
  expect(b.some((v) => v !== 0)).toBe(true);
  expect(Fp.pow(Fp.add(Fp.pow(x, 3n), 5n), (PALLAS_P - 1n) / 2n)).toBe(1n);
}

function checkCompactFields(tx: ParsedTx): number {
  let n = 0;
  for (const o of tx.sapling.outputs) {
    expect(leBytesToBigint(o.cmu) < JUBJUB_BASE).toBe(true);
    once(o.ephemeralKey, decodeJubjub);
    n++;
  }
  for (const s of tx.sapling.spends) expect(s.nf.length).toBe(32);
  for (const a of [...(tx.orchard?.actions ?? []), ...(tx.ironwood?.actions ?? [])]) {
    expect(leBytesToBigint(a.nullifier) < PALLAS_P).toBe(true);
    expect(leBytesToBigint(a.cmx) < PALLAS_P).toBe(true);
    once(a.ephemeralKey, decodePallas);
    n++;
  }
  return n;
}

describe("synthetic compact fields", () => {
  it("decode as a wallet decodes them, in every pool and on reorg branches", () => {
    let outputs = 0;
    const versions = new Set<number>();
    for (let h = 0; h < 60; h++) {
      const body = syntheticBody("canonical", h, h % 2);
      for (const raw of body.txs) {
        const tx = parseTransaction(raw, { strictV6: false });
        versions.add(tx.version);
        outputs += checkCompactFields(tx);
      }
    }
    expect([...versions].sort()).toEqual([4, 5, 6]);
    expect(outputs).toBeGreaterThan(500);
  });
});

describe("synthetic blocks follow their height's consensus rules", () => {
  it("builds v4 Sapling-only blocks before NU5, v4/v5 without Ironwood before NU6.3, with each era's branch id", () => {
    const cases = [
      { network: "mainnet", height: 663_251, versions: [4], branch: 0 },
      { network: "testnet", height: 1_028_601, versions: [4], branch: 0 },
      { network: "mainnet", height: 1_687_109, versions: [4, 5], branch: 0xc2d6d0b4 },
      { network: "mainnet", height: 2_726_400, versions: [4, 5], branch: 0xc8e71055 },
      { network: "mainnet", height: 3_428_143, versions: [4, 5, 6], branch: 0x37a5165b },
    ] as const;
    for (const c of cases) {
      const versions = new Set<number>();
      let ironwood = 0;
      let orchard = 0;
      for (let h = c.height; h < c.height + 40; h++) {
        const body = syntheticBody("eras", h, 0, [], blockEra(c.network, false, h));
        for (const raw of body.txs) {
          const tx = parseTransaction(raw, { strictV6: false });
          versions.add(tx.version);
          if (tx.version >= 5) expect(tx.consensusBranchId).toBe(c.branch);
          orchard += tx.orchard?.actions.length ?? 0;
          ironwood += tx.ironwood?.actions.length ?? 0;
          checkCompactFields(tx);
        }
      }
      expect([...versions].sort()).toEqual(c.versions);
      expect(orchard > 0).toBe(c.versions.length > 1);
      expect(ironwood > 0).toBe(c.versions.length > 2);
    }
    expect(() => syntheticBody("eras", 419_199, 0, [], blockEra("mainnet", false, 419_199))).toThrow(
      /before Sapling/,
    );
  });
});
