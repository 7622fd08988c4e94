import { describe, expect, it } from "vitest";
import { bigintToLeBytes, fromHex, leBytesToBigint, toHex } from "../../proto/bytes.ts";
import { groupHashPallas, mapToIsoPallas } from "./hash-to-pallas.ts";
import { hashPair } from "./merkle-hasher.ts";
import { createOrchardHasher } from "./orchard-hasher.ts";
import { encodePallasPoint } from "./pallas.ts";
import { sinsemillaHash, sinsemillaHashToPoint } from "./sinsemilla.ts";

// Public test vectors from zcash/zcash-test-vectors, test-vectors/json/orchard_group_hash.json,
// orchard_map_to_curve.json, orchard_sinsemilla.json and orchard_empty_roots.json (a subset each).
const GROUP_HASH = [
  [
    "z.cash:test",
    "5472616e7320726967687473206e6f7721",
    "d36b0b649b5c6936027a180f7d254023956fc2883ddf23ffc3c8fd1fa3cd1818",
  ],
  [
    "z.cash:test-longer",
    "882d2b2103596555ed9494c6ac893c49723833ec8926c1039586a7afcf4a0d9c731e985d99589c8bb838e8aaf745533ed9e8ae3a1cd074a51a20da8aba",
    "f38cb5e1607c7122cef731c8e61875b8c1f3e2ec06c59e9ccadbd3a2cae8683f",
  ],
  ["z.cash:test", "e73081ef8d62cb78", "b61744c0c70d654c025370557aac7fbe421a49707718ba90ff7d9ebdc51d1919"],
];
const MAP_TO_ISO = [
  [
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0038a6bc533233af74b6e2e05c6ecaf66071c6a0f15b58e93df06bd23107152c",
  ],
  [
    "2301efcdab89674523f1debc9a78563412efcdab89674523f1debc9a78563412",
    "2357b297ef830b046cd78e8118742ba1a9658eda8fc1039cc3db36d5647ff2a4",
  ],
  [
    "4d5431e6437d0b5bedbbcdaf345b86c4121fc00fe7f235734276d38d47f1e111",
    "43cb909391ed2fae2f3f38e95912dda238f21fc9911767c15e58a3b8e0b00a91",
  ],
];
const SINSEMILLA: [string, number[] | string, string][] = [
  [
    "z.cash:test-Sinsemilla",
    [
      0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1,
      1, 0, 1, 1, 0,
    ],
    "9854aa384363b5708e06b419b643586839653fba5a782d2db14ced13c19a832b",
  ],
  [
    "z.cash:test-Sinsemilla-longer",
    "00010101010101010100000000010001000001000100010101000101010001000100000101000001000000000101010001000000000000010000000000",
    "dc5ff05b6f18b076b6128237a759edc7c8778c70222c79b734037b69393abf3e",
  ],
  [
    "z.cash:test-Sinsemilla",
    "0100010101000100",
    "806acc247ac9ba90d25f583dadb5e0ee5c03e1ab3570b362b4be5a8bceb60b00",
  ],
];
const EMPTY_ROOTS = {
  1: "d1ab2507c809c2713c000f525e9fbdcb06c958384e51b9cc7f792dde6c97f411",
  2: "c7413f4614cd64043abbab7cc1095c9bb104231cea89e2c3e0df83769556d030",
  16: "2182163eac4061885a313568148dfae564e478066dcbe389a0ddb1ecb7f5dc34",
  32: "ae2935f1dfd8a24aed7c70df7de3a668eb7a49b1319880dde2bbd9031ae5d82f",
};

/** The vectors give bits as a list, or as hex bytes that are each 00 or 01. */
function bits(msg: number[] | string): number[] {
  return typeof msg === "string" ? [...fromHex(msg, "t")] : msg;
}

describe("Orchard MerkleCRH over Pallas", () => {
  const h = createOrchardHasher();

  it("hashes to Pallas as the group-hash vectors say", () => {
    for (const [domain, msg, point] of GROUP_HASH) {
      expect(toHex(encodePallasPoint(groupHashPallas(domain!, fromHex(msg!, "t"))))).toBe(point);
    }
  });

  it("maps field elements onto iso-Pallas as the map-to-curve vectors say", () => {
    for (const [u, point] of MAP_TO_ISO) {
      expect(toHex(encodePallasPoint(mapToIsoPallas(leBytesToBigint(fromHex(u!, "t")))))).toBe(point);
    }
  });

  it("computes the Sinsemilla vectors' hashes", () => {
    for (const [domain, msg, hash] of SINSEMILLA) {
      expect(toHex(bigintToLeBytes(sinsemillaHash(domain, bits(msg))!))).toBe(hash);
    }
  });

  it("gives the published empty roots with the 10-bit level prefix", () => {
    for (const [level, root] of Object.entries(EMPTY_ROOTS)) {
      expect(toHex(bigintToLeBytes(h.emptyRoot(Number(level))))).toBe(root);
    }
  });

  it("agrees with the reference Sinsemilla for arbitrary nodes at several levels", () => {
    const toBits = (v: bigint, n: number) =>
      Array.from({ length: n }, (_, i) => Number((v >> BigInt(i)) & 1n));
    const left = 0x1234_5678_9abc_def0_1122_3344_5566_7788n;
    const right = (1n << 254n) - 12345n;
    for (const level of [0, 9, 31]) {
      const msg = [...toBits(BigInt(level), 10), ...toBits(left, 255), ...toBits(right, 255)];
      expect(hashPair(h, level, left, right)).toBe(sinsemillaHashToPoint("z.cash:Orchard-MerkleCRH", msg)!.x);
    }
  });
});
