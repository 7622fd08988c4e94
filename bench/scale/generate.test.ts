import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { auditStore } from "../../origin/index/store-audit.ts";
import { createDirectoryStore } from "../../origin/store/index.ts";
import { decodeTreeStateRange, treeStateKey } from "../../proto/treestate/index.ts";
import { generate } from "./generate.ts";

const dir = mkdtempSync(join(tmpdir(), "lightedge-scale-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("scale generator", () => {
  it("writes a store the origin's audit accepts: every range complete, chained, the head at the tip", async () => {
    const r = await generate({
      to: 2_500,
      store: `dir:${dir}`,
      payloadScale: 0.05,
      rangeSize: 500,
      network: "mainnet",
      workers: 2,
      seed: "test",
    });
    // 6 ranges × 5 objects, two hash shards (3,000 entries, ≤ 2,048 a shard on average), one
    // range-ends object (a recent level of 6), the head.
    expect(r).toMatchObject({ ranges: 6, tip: 2_999, objects: 34 });
    const store = createDirectoryStore(dir);
    const audit = await auditStore(store, "mainnet", 500);
    expect(audit.ranges).toBe(6);
    expect(audit.head?.tip?.height).toBe(2_999);
    // The block-hash index of all 3,000 blocks (one recent level: fewer ranges than an epoch).
    expect(audit.hashIndex).toEqual({ levels: 1, shards: 2, entries: 3_000, rangeEnds: 1 });
    expect(audit.bytes).toBe(r.bytes.shielded + r.bytes.full + r.bytes.nullifiers);
    const trees = await store.get(treeStateKey("mainnet", 500, 5));
    expect(decodeTreeStateRange(trees!).header).toMatchObject({
      startHeight: 2_500,
      count: 500,
      network: "main",
    });
  });
});
