import { randomBytes } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { displayHex } from "../../proto/bytes.ts";
import { hexJsonOf } from "./blocks-rpc.ts";
import { flatDisplayHex } from "./chain-blocks.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("served block encodings", () => {
  it("getblock 0's JSON string is the quoted hex of the block, across encoding pieces", () => {
    for (const n of [0, 1, 16_383, 16_384, 16_385, 3 * 16_384 + 7, 1_900_000]) {
      const raw = randomBytes(n);
      expect(hexJsonOf(raw).toString("latin1")).toBe(JSON.stringify(raw.toString("hex")));
    }
  });

  it("txids and hashes are the display hex, held as flat strings (~120 bytes, not ~900)", () => {
    const wire = Array.from({ length: 50_000 }, () => randomBytes(32));
    for (const w of wire.slice(0, 100)) expect(flatDisplayHex(w)).toBe(displayHex(w));
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = wire.map(flatDisplayHex);
    gc();
    const perString = (process.memoryUsage().heapUsed - before) / kept.length;
    // The dev node keeps 200,000 served txids (node-state.ts): a rope each was ~180 MB of heap.
    expect(perString).toBeLessThan(300);
    expect(kept.length).toBe(wire.length);
  });
});
