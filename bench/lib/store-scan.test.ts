import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { encodeSealedRange, rangeKeys } from "../../proto/range/index.ts";
import { randomWindows, staticRangeRequest } from "./rpc-requests.ts";
import { concatProjection, scanStore } from "./store-scan.ts";

const RANGE = 4;
const dir = mkdtempSync(join(tmpdir(), "bench-scan-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Two sealed 4-block ranges with messages of varying sizes, written as a directory store. */
function writeStore(): Map<number, Uint8Array> {
  const shielded = new Map<number, Uint8Array>();
  for (const index of [0, 1]) {
    const blocks = Array.from({ length: RANGE }, (_, i) => {
      const height = index * RANGE + i;
      const message = (n: number) => new Uint8Array(n + height * 3).fill(height + 1);
      shielded.set(height, message(10));
      const hash = new Uint8Array(32).fill(height + 1);
      return {
        height,
        wireHash: hash,
        wirePrevHash: new Uint8Array(32).fill(height),
        time: 0,
        treeSizes: { sapling: 0, orchard: 0, ironwood: 0 },
        messages: { shielded: message(10), full: message(20), nullifiers: message(2) },
      };
    });
    const enc = encodeSealedRange({ network: "regtest", rangeSize: RANGE, index, blocks });
    const keys = rangeKeys("regtest", RANGE, index);
    const put = (key: string, bytes: Uint8Array) => {
      mkdirSync(join(dir, key, ".."), { recursive: true });
      writeFileSync(join(dir, key), bytes);
    };
    put(keys.meta, enc.meta);
    for (const p of ["shielded", "full", "nullifiers"] as const) put(keys.data[p], enc.data[p]);
  }
  const head = { rangeSize: RANGE, firstHeight: 0, tip: { height: 2 * RANGE - 1 } };
  writeFileSync(join(dir, "v1/regtest/head.json"), JSON.stringify(head));
  return shielded;
}

describe("the bench's view of a directory store", () => {
  const messages = writeStore();

  it("counts raw protobuf bytes as stored bytes minus one frame header per block", () => {
    const scan = scanStore(dir, "regtest");
    const raw = [...messages.values()].reduce((a, m) => a + m.length, 0);
    expect(scan.rawBytes.shielded).toBe(raw);
    expect(scan.storedBytes.shielded).toBe(raw + messages.size * FRAME_HEADER_BYTES);
    expect(scan.storedBytes.meta).toBeGreaterThan(0);
    expect(scan.objects.map((o) => o.key)).toContain("v1/regtest/head.json");
  });

  it("lets the static baseline serve exactly the frames of any height range", () => {
    const scan = scanStore(dir, "regtest");
    const file = join(dir, "shielded.bin");
    const offsets = concatProjection(scan, "shielded", file);
    const bytes = readFileSync(file);
    const req = staticRangeRequest(offsets, 0, 3, 5);
    const q = new URL(req.path, "http://x").searchParams;
    const slice = bytes.subarray(Number(q.get("offset")), Number(q.get("offset")) + Number(q.get("length")));
    const expected = [3, 4, 5].reduce((a, h) => a + FRAME_HEADER_BYTES + messages.get(h)!.length, 0);
    expect(slice.length).toBe(expected);
    expect(slice.subarray(FRAME_HEADER_BYTES)[0]).toBe(4); // height 3's message bytes are 4s
    expect(req.blocks).toBe(3);
  });

  it("draws seeded windows that stay inside the sealed chain", () => {
    const windows = randomWindows(5, 50, 3, 0, 7);
    expect(windows).toEqual(randomWindows(5, 50, 3, 0, 7));
    for (const w of windows) {
      expect(w.start).toBeGreaterThanOrEqual(0);
      expect(w.end).toBeLessThanOrEqual(7);
      expect(w.end - w.start + 1).toBe(3);
    }
  });
});
