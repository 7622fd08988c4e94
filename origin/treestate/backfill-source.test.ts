import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { encodeFrame } from "../../proto/frame.ts";
import {
  CompactBlockSchema,
  CompactOrchardActionSchema,
  CompactSaplingOutputSchema,
  CompactTxSchema,
} from "../../proto/index.ts";
import type { SealedReader } from "../index/index.ts";
import { storedBlocks } from "./backfill-source.ts";

/** A sealed reader whose frames are views of one shared "range read", as the real one's are. */
function oneRangeRead(): SealedReader {
  const frames = [5, 6].map((height) =>
    encodeFrame(
      toBinary(
        CompactBlockSchema,
        create(CompactBlockSchema, {
          height: BigInt(height),
          time: 1000 + height,
          vtx: [
            create(CompactTxSchema, {
              outputs: [create(CompactSaplingOutputSchema, { cmu: new Uint8Array(32).fill(height) })],
              actions: [create(CompactOrchardActionSchema, { cmx: new Uint8Array(32).fill(height + 1) })],
            }),
          ],
        }),
      ),
    ),
  );
  const read = new Uint8Array(frames.reduce((n, f) => n + f.length + 4096, 0));
  let at = 0;
  const views = frames.map((f) => {
    read.set(f, at);
    const view = read.subarray(at, at + f.length);
    at += f.length + 4096;
    return view;
  });
  return {
    async *blocks() {
      for (const [k, frame] of views.entries())
        yield { height: 5 + k, wireHash: read.subarray(k * 32, k * 32 + 32), frame } as never;
    },
  } as unknown as SealedReader;
}

describe("blocks read back for the tree backfill", () => {
  it("hold copies, not views of the range read (a waiting block must not pin it)", async () => {
    const seen = [];
    for await (const b of storedBlocks(oneRangeRead(), 5, 6)) seen.push(b);
    expect(seen.map((b) => b.saplingCmus[0]![0])).toEqual([5, 6]);
    expect(seen.map((b) => b.orchardCmxs[0]![0])).toEqual([6, 7]);
    for (const b of seen)
      for (const bytes of [b.wireHash, ...b.saplingCmus, ...b.orchardCmxs])
        expect(bytes.buffer.byteLength).toBe(32);
  });
});
