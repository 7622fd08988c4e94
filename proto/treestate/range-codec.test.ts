import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { chainDir, hasChain, readChainFile } from "../../test/support/chain.ts";
import { LightedgeError } from "../errors.ts";
import { decodeTreeStateEntry, entryByteRange, parseFinalState, serializeFinalState } from "./index.ts";
import {
  decodeTreeStateRange,
  encodeTreeStateRange,
  type TreeStateBlock,
  treeStateAt,
  treeStateFromParts,
} from "./range-codec.ts";

const node = (seed: number) => Uint8Array.from({ length: 32 }, (_, i) => (seed * 31 + i) & 0x7f);
const hash = (h: number) => Uint8Array.from({ length: 32 }, (_, i) => (h + i) & 0xff);

/** Synthetic trees: a left leaf and a parent whose presence follows the height. */
function block(height: number, withOrchard: boolean): TreeStateBlock {
  const sapling = { left: node(height >> 1), parents: [undefined, node(7)] };
  return {
    height,
    wireHash: hash(height),
    time: 1_700_000_000 + height,
    sapling,
    orchard: withOrchard ? { parents: [] } : undefined,
  };
}

describe("the stored tree-state range", () => {
  const blocks = Array.from({ length: 10 }, (_, i) => block(100 + i, i >= 4));
  const bytes = encodeTreeStateRange({ network: "main", blocks });

  it("answers every height with the finalState strings it was given", () => {
    const range = decodeTreeStateRange(bytes);
    for (const b of blocks) {
      const view = treeStateAt(range, b.height);
      expect(view.saplingTree).toBe(serializeFinalState(b.sapling!));
      expect(view.orchardTree).toBe(b.orchard ? "000000" : "");
      expect(view.ironwoodTree).toBe("");
      expect(view.hash).toBe(Buffer.from(b.wireHash).reverse().toString("hex"));
      expect(view.time).toBe(b.time);
      expect(view.network).toBe("main");
    }
  });

  it("stores consecutive identical frontiers once", () => {
    const distinct = new Set(
      blocks.map((_, i) => decodeTreeStateEntry(bytes, entryByteRange(100, 100 + i).offset).recordOffset),
    );
    expect(distinct.size).toBeLessThan(blocks.length);
  });

  it("answers from one table entry and one record read alone", () => {
    const at = entryByteRange(100, 107);
    const entry = decodeTreeStateEntry(bytes.slice(at.offset, at.offset + at.length));
    const record = bytes.slice(entry.recordOffset, entry.recordOffset + entry.recordLength);
    expect(treeStateFromParts("main", 107, entry, record)).toEqual(
      treeStateAt(decodeTreeStateRange(bytes), 107),
    );
  });

  it("encodes the same bytes whether blocks share tree objects or carry copies, with either SHA-256", () => {
    // Sapling shared by every block, Orchard shared in runs and changing between them: a shortcut
    // that looked at one pool only, or reused a record across a change, would differ from copies.
    const sapling = { left: node(1), parents: [node(2)] };
    const orchards = [
      { parents: [] },
      { left: node(3), parents: [] },
      { left: node(4), right: node(5), parents: [] },
    ];
    const shared: TreeStateBlock[] = Array.from({ length: 12 }, (_, i) => ({
      height: 500 + i,
      wireHash: hash(i),
      time: 1_700_000_000 + i,
      sapling,
      orchard: orchards[Math.floor(i / 3) % 3],
      ironwood: i >= 9 ? { parents: [] } : undefined,
    }));
    const copy = (t: TreeStateBlock["sapling"]) =>
      t && { left: t.left?.slice(), right: t.right?.slice(), parents: t.parents.map((p) => p?.slice()) };
    const copies = shared.map((b) => ({
      ...b,
      sapling: copy(b.sapling),
      orchard: copy(b.orchard),
      ironwood: copy(b.ironwood),
    }));
    const expected = encodeTreeStateRange({ network: "main", blocks: copies });
    expect(encodeTreeStateRange({ network: "main", blocks: shared })).toEqual(expected);
    const native = (b: Uint8Array) => new Uint8Array(createHash("sha256").update(b).digest());
    expect(encodeTreeStateRange({ network: "main", blocks: shared }, { sha256: native })).toEqual(expected);
    const range = decodeTreeStateRange(expected);
    for (const b of shared) {
      const view = treeStateAt(range, b.height);
      expect(view.orchardTree).toBe(serializeFinalState(b.orchard!));
      expect(view.ironwoodTree).toBe(b.ironwood ? serializeFinalState(b.ironwood) : "");
    }
  });

  it("refuses corrupted or truncated objects and heights outside the range", () => {
    const flipped = bytes.slice();
    flipped[flipped.length - 5]! ^= 1;
    expect(() => decodeTreeStateRange(flipped)).toThrow(/sha256/);
    expect(() => decodeTreeStateRange(bytes.slice(0, bytes.length - 1))).toThrow(LightedgeError);
    expect(() => decodeTreeStateRange(bytes.slice(0, 20))).toThrow(/truncated/);
    const at = entryByteRange(100, 103);
    const entry = decodeTreeStateEntry(bytes, at.offset);
    const record = bytes.slice(entry.recordOffset, entry.recordOffset + entry.recordLength);
    record[0] ^= 1;
    expect(() => treeStateFromParts("main", 103, entry, record)).toThrow(/digest/);
    expect(() => treeStateAt(decodeTreeStateRange(bytes), 99)).toThrow(
      expect.objectContaining({ kind: "not-found" }),
    );
    expect(() => treeStateAt(decodeTreeStateRange(bytes), 110)).toThrow(
      expect.objectContaining({ kind: "not-found" }),
    );
  });
});

describe("finalState parsing", () => {
  it("rejects malformed strings with a typed error", () => {
    for (const bad of [
      "0",
      "zz",
      "02",
      "0000ff",
      `01${"00".repeat(31)}0000`,
      `00000101${"00".repeat(32)}`,
      "00000000",
    ]) {
      expect(() => parseFinalState(bad)).toThrow(LightedgeError);
    }
  });

  describe.skipIf(!hasChain)(`on real checkpoints (${chainDir})`, () => {
    it("round-trips every checkpoint tree through the compact record in one of the two styles", () => {
      // Older checkpoints came from zcashd-backed servers (minimal parents), newer ones are padded.
      const files = [
        "mainnet/2000000",
        "mainnet/3429810",
        "mainnet/3444780",
        "testnet/4134750",
        "testnet/4255170",
      ];
      for (const f of files) {
        const cp = JSON.parse(readChainFile(`treestate/${f}.json`).toString());
        const trees = {
          sapling: parseFinalState(cp.saplingTree),
          orchard: parseFinalState(cp.orchardTree),
          ironwood: parseFinalState(cp.ironwoodTree ?? "000000"),
        };
        const range = decodeTreeStateRange(
          encodeTreeStateRange({
            network: cp.network,
            blocks: [{ height: Number(cp.height), wireHash: new Uint8Array(32), time: cp.time, ...trees }],
          }),
        );
        const styles = [
          treeStateAt(range, Number(cp.height), "zcashd"),
          treeStateAt(range, Number(cp.height)),
        ];
        expect(styles.map((v) => v.saplingTree)).toContain(cp.saplingTree);
        if (cp.ironwoodTree) expect(styles.map((v) => v.ironwoodTree)).toContain(cp.ironwoodTree);
        const view = styles[1]!;
        expect(parseFinalState(view.orchardTree)).toEqual(trees.orchard);
      }
    });
  });
});
