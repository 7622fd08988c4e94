import { LightedgeError } from "../../proto/errors.ts";
import { encodeFrame } from "../../proto/frame.ts";
import {
  blockInfo,
  displayHashOf,
  equalBytes,
  type HeadObject,
  rangeIndexOf,
  wireHashOf,
} from "../../proto/range/index.ts";
import type { BlockMeta, ChainBlock, ChainView, Projection, TipInfo } from "./chain-view.ts";
import type { SealedReader } from "./sealed-reader.ts";
import type { Tail } from "./tail.ts";

export interface ViewSource {
  tail: Tail;
  sealed: SealedReader;
  rangeSize: number;
  head(): HeadObject | null;
  floor(): number;
  /** Height of a display hash on the node's main chain (for hashes below the tail); optional. */
  resolveHeight?(displayHash: string): Promise<number | undefined>;
}

/** The ChainView plus the hook the indexer calls after every tip change. */
export interface IndexView extends ChainView {
  notifyTip(): void;
}

const WHERE = "chain-view";

export function createChainView(src: ViewSource): IndexView {
  const listeners = new Set<(tip: TipInfo) => void>();
  const sealedTip = () => src.head()?.tip?.height ?? -1;

  const tip = (): TipInfo | undefined => {
    const last = src.tail.last();
    if (last) return { height: last.height, wireHash: last.wireHash, time: last.time };
    const sealed = src.head()?.tip;
    return sealed
      ? { height: sealed.height, wireHash: wireHashOf(sealed.displayHash), time: sealed.time }
      : undefined;
  };

  const check = (from: number, to: number) => {
    for (const h of [from, to]) {
      if (!Number.isSafeInteger(h) || h < 0)
        throw new LightedgeError("bad-request", WHERE, `invalid height ${h}`);
    }
    const top = tip()?.height ?? -1;
    if (Math.max(from, to) > top) {
      throw new LightedgeError(
        "above-tip",
        WHERE,
        `height ${Math.max(from, to)} is above the served tip ${top}`,
      );
    }
    if (Math.min(from, to) < src.floor()) {
      throw new LightedgeError(
        "not-found",
        WHERE,
        `height ${Math.min(from, to)} is below the first indexed height ${src.floor()}`,
      );
    }
  };

  /** Yields blocks from whichever source holds each height now (the seam moves as ranges seal). */
  async function* rawBlocks(
    projection: Projection,
    from: number,
    to: number,
    signal?: AbortSignal,
  ): AsyncGenerator<ChainBlock> {
    const step = from <= to ? 1 : -1;
    for (let h = from; step > 0 ? h <= to : h >= to; ) {
      if (signal?.aborted) return;
      const sealed = sealedTip();
      if (h <= sealed) {
        // Stay inside one range per call so a seam move is noticed promptly.
        const edge =
          step > 0
            ? Math.min(to, sealed, (rangeIndexOf(h, src.rangeSize) + 1) * src.rangeSize - 1)
            : Math.max(to, rangeIndexOf(h, src.rangeSize) * src.rangeSize);
        yield* src.sealed.blocks(projection, h, edge, signal);
        h = edge + step;
        continue;
      }
      const block = src.tail.get(h);
      if (block === undefined) {
        throw new LightedgeError(
          "chain-break",
          WHERE,
          `block ${h} left the served chain (reorg) while streaming`,
        );
      }
      yield {
        height: h,
        wireHash: block.wireHash,
        wirePrevHash: block.wirePrevHash,
        frame: encodeFrame(block.messages[projection]),
      };
      h += step;
    }
  }

  async function* blocks(
    projection: Projection,
    from: number,
    to: number,
    options?: { signal?: AbortSignal },
  ): AsyncGenerator<ChainBlock> {
    check(from, to);
    let previous: ChainBlock | undefined;
    for await (const block of rawBlocks(projection, from, to, options?.signal)) {
      if (previous) {
        const chained =
          from <= to
            ? equalBytes(block.wirePrevHash, previous.wireHash)
            : equalBytes(previous.wirePrevHash, block.wireHash);
        if (!chained) {
          throw new LightedgeError(
            "chain-break",
            WHERE,
            `blocks ${previous.height} and ${block.height} do not chain (reorg mid-stream)`,
          );
        }
      }
      previous = block;
      yield block;
    }
  }

  const blockMeta = async (height: number): Promise<BlockMeta | undefined> => {
    const top = tip()?.height ?? -1;
    if (!Number.isSafeInteger(height) || height < src.floor() || height > top) return undefined;
    const block = src.tail.get(height);
    if (block && height > sealedTip()) {
      const { wireHash, wirePrevHash: prevWireHash, time, treeSizes } = block;
      return { height, wireHash, prevWireHash, time, treeSizes };
    }
    if (height > sealedTip()) return undefined;
    const info = blockInfo(await src.sealed.meta(rangeIndexOf(height, src.rangeSize)), height);
    return {
      height,
      wireHash: info.wireHash,
      prevWireHash: info.wirePrevHash,
      time: info.time,
      treeSizes: info.treeSizes,
    };
  };

  return {
    tip,
    sealedTip,
    floor: () => src.floor(),
    onTip(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    blocks,
    async *blockFrames(projection, from, to, options) {
      for await (const block of blocks(projection, from, to, options)) yield block.frame;
    },
    blockMeta,
    async heightOfHash(wireHash) {
      const inTail = src.tail.heightOfHash(wireHash);
      if (inTail !== undefined) return inTail;
      const height = await src.resolveHeight?.(displayHashOf(wireHash));
      if (height === undefined || height > sealedTip()) return undefined;
      const meta = await blockMeta(height);
      return meta && equalBytes(meta.wireHash, wireHash) ? height : undefined;
    },
    notifyTip() {
      const current = tip();
      if (current) for (const listener of listeners) listener(current);
    },
  };
}
