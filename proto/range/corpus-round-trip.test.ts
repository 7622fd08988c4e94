import { describe, expect, it } from "vitest";
import { parseBlock, projectBlock } from "../../origin/chain/index.ts";
import { type CorpusBlock, corpusIndex, hasChain, readChainHex } from "../../test/support/chain.ts";
import { displayHex } from "../bytes.ts";
import { decodeFrames } from "../frame.ts";
import {
  blockInfo,
  blockSpan,
  decodeRangeMeta,
  encodeSealedRange,
  PROJECTIONS,
  type SealedBlockInput,
  verifySection,
} from "./index.ts";

/** Largest aligned window [index*size, (index+1)*size) inside a run, so real runs form real ranges. */
function alignedWindow(from: number, to: number): { size: number; index: number } {
  for (let size = to - from + 1; size > 1; size--) {
    const index = Math.ceil(from / size);
    if ((index + 1) * size - 1 <= to) return { size, index };
  }
  return { size: 1, index: from };
}

function sealedInput(block: CorpusBlock): SealedBlockInput {
  const parsed = parseBlock(readChainHex(block.file));
  const treeSizes = { sapling: 0, orchard: 0, ironwood: 0 };
  return {
    height: block.height,
    wireHash: parsed.wireHash,
    wirePrevHash: parsed.header.wirePrevHash,
    time: parsed.header.time,
    treeSizes,
    messages: projectBlock(parsed, treeSizes),
  };
}

describe.skipIf(!hasChain)("sealed ranges of real corpus runs", () => {
  const index = hasChain ? corpusIndex() : { runs: [], blocks: [] };
  const runs = index.runs.filter((r) => r.consecutive);

  it.each(runs.map((r) => [r.id, r] as const))("round-trip %s byte-exactly", (_id, run) => {
    const blocks = index.blocks
      .filter((b) => b.run === run.id)
      .sort((a, b) => a.height - b.height)
      .map((b) => ({ corpus: b, input: sealedInput(b) }));
    const { size, index: rangeIndex } = alignedWindow(run.from, run.to);
    const window = blocks.filter((b) => Math.floor(b.corpus.height / size) === rangeIndex);
    expect(window).toHaveLength(size);
    const encoded = encodeSealedRange({
      network: run.network,
      rangeSize: size,
      index: rangeIndex,
      blocks: window.map((b) => b.input),
    });
    const meta = decodeRangeMeta(encoded.meta);
    for (const projection of PROJECTIONS) {
      verifySection(meta, projection, encoded.data[projection]);
      const stored = [...decodeFrames(encoded.data[projection])].map((f) => f.message);
      expect(stored).toEqual(window.map((b) => b.input.messages[projection]));
    }
    for (const { corpus } of window) {
      const info = blockInfo(meta, corpus.height);
      expect(displayHex(info.wireHash)).toBe(corpus.hash);
      expect(displayHex(info.wirePrevHash)).toBe(corpus.prevHash);
      expect(info.time).toBe(corpus.time);
      const span = blockSpan(meta, "full", corpus.height, corpus.height);
      expect([
        ...decodeFrames(encoded.data.full.subarray(span.offset, span.offset + span.length)),
      ]).toHaveLength(1);
    }
  });

  it("seals every corpus block as a one-block range, byte-exactly", () => {
    for (const block of index.blocks) {
      const input = sealedInput(block);
      const encoded = encodeSealedRange({
        network: block.network,
        rangeSize: 1,
        index: block.height,
        blocks: [input],
      });
      const meta = decodeRangeMeta(encoded.meta);
      for (const projection of PROJECTIONS) {
        expect([...decodeFrames(encoded.data[projection])][0]!.message).toEqual(input.messages[projection]);
      }
      expect(displayHex(meta.parentWireHash)).toBe(block.prevHash);
    }
  });
});
