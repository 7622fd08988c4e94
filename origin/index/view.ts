import { displayHex, equalBytes, wireHashOf } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { ChainCheck } from "../../proto/range/chain-link.ts";
import {
  blockInfo,
  DEFAULT_SPAN_READ_BYTES,
  type HeadObject,
  rangeIndexOf,
  spanRuns,
} from "../../proto/range/index.ts";
import type { BlockMeta, ChainView, Projection, TipInfo } from "./chain-view.ts";
import type { SealedReader } from "./sealed-reader.ts";
import type { Tail } from "./tail.ts";
import { asBlocks, asFrameRuns, asFrames, type Emit, sealedLink } from "./view-stream.ts";

export interface ViewSource {
  tail: Tail;
  sealed: SealedReader;
  rangeSize: number;
  head(): HeadObject | null;
  floor(): number;
  /**
   * Why the tail may not be served (a reorg reached sealed ranges: the tail is on an abandoned
   * branch), or undefined. While set, `tip()` and every height above the sealed tip answer
   * Unavailable with this reason; sealed heights are still served.
   */
  halted?(): string | undefined;
  /**
   * Heights that may hold a display hash below the tail, ascending (the hash index's candidates,
   * or the node's answer); the view keeps the one whose metadata names the hash. Optional.
   */
  resolveHeights?(displayHash: string): Promise<readonly number[]>;
  /** Most bytes of a range's span a block-by-block stream reads at once (default DEFAULT_SPAN_READ_BYTES). */
  spanReadBytes?: number;
}

/** The ChainView plus the hook the indexer calls after every tip change. */
export interface IndexView extends ChainView {
  notifyTip(): void;
  /** The newest block held (tail tip, else sealed tip): `tip()`, for status and metrics. */
  lastBlock(): TipInfo | undefined;
}

const WHERE = "chain-view";

export function createChainView(src: ViewSource): IndexView {
  const listeners = new Set<(tip: TipInfo) => void>();
  const sealedTip = () => src.head()?.tip?.height ?? -1;
  const spanReadBytes = src.spanReadBytes ?? DEFAULT_SPAN_READ_BYTES;

  const halted = () => src.halted?.();
  const withheld = (reason: string) =>
    new LightedgeError("unavailable", WHERE, `${reason}; only sealed history is served`);

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
    const reason = halted();
    if (reason !== undefined && Math.max(from, to) > sealedTip()) throw withheld(reason);
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

  /**
   * One stream, one generator: each height from whichever source holds it now (the seam moves as
   * ranges seal), `emit` shaping what is yielded. Sealed heights come a range at a time from one
   * ranged read; inside a range the metadata guarantees the chain (proto/range/meta-query.ts wirePrevHashView), so continuity
   * is checked where sources meet — between ranges, at the seam, and between tail blocks.
   */
  async function* walk<T>(
    projection: Projection,
    from: number,
    to: number,
    signal: AbortSignal | undefined,
    emit: Emit<T>,
    into?: (length: number) => Uint8Array,
  ): AsyncGenerator<T> {
    check(from, to);
    const ascending = from <= to;
    const step = ascending ? 1 : -1;
    const chain = new ChainCheck(ascending);
    for (let h = from; ascending ? h <= to : h >= to; ) {
      if (signal?.aborted) return;
      const sealed = sealedTip();
      if (h <= sealed) {
        // Stay inside one range per read so a seam move is noticed promptly.
        const index = rangeIndexOf(h, src.rangeSize);
        const edge = ascending
          ? Math.min(to, sealed, (index + 1) * src.rangeSize - 1)
          : Math.max(to, index * src.rangeSize);
        // A whole range this process has checked whole before needs no block table: its ends chain
        // it (ascending, a run's first prevHash and last hash are all a check reads), and no
        // metadata is read, hashed and decoded per range — the origin's cost per range of a
        // long download (bench/scale/origin-serve.ts profile: metadata decode and its GC).
        const whole =
          ascending &&
          emit.wholeRange !== undefined &&
          h === index * src.rangeSize &&
          edge === h + src.rangeSize - 1;
        if (whole) {
          const read = await src.sealed.readVerifiedWhole(projection, index, { into });
          if (read !== undefined) {
            const { ends } = read;
            chain.ascendingRun(
              { height: h, wirePrevHash: ends.parentWireHash },
              { height: edge, wireHash: ends.lastWireHash },
            );
            if (signal?.aborted) return;
            yield emit.wholeRange!(read.body);
            h = edge + 1;
            continue;
          }
        }
        if (ascending && emit.sealedRun !== undefined) {
          // Yielded whole, so it may go into the caller's buffer (BlockFramesOptions.into).
          const span = await src.sealed.read(projection, h, edge, { into });
          chain.run(sealedLink(span.meta, h), sealedLink(span.meta, edge));
          if (signal?.aborted) return;
          yield emit.sealedRun(span, h, edge);
        } else {
          // Block by block (descending, or a consumer of blocks): read in runs of at most
          // spanReadBytes, so a stream holds one run, not a whole range (a spam-era range is
          // ≈ 42 MB shielded; proto/range/span-runs.ts). Partial reads are trusted within the
          // metadata's bounds, as every partial read is (sealed-reader.ts).
          const meta = await src.sealed.meta(index);
          chain.run(sealedLink(meta, h), sealedLink(meta, edge));
          const offsets = meta.offsets[projection];
          for (const run of spanRuns(offsets, meta.firstHeight, h, edge, spanReadBytes)) {
            if (signal?.aborted) return;
            const lo = Math.min(run.from, run.to);
            const span = await src.sealed.read(projection, lo, Math.max(run.from, run.to));
            for (let k = run.from; ascending ? k <= run.to : k >= run.to; k += step) {
              if (signal?.aborted) return;
              yield emit.sealed(span, k);
            }
          }
        }
        h = edge + step;
        continue;
      }
      const reason = halted();
      if (reason !== undefined) throw withheld(reason);
      const block = src.tail.get(h);
      if (block === undefined) {
        throw new LightedgeError(
          "chain-break",
          WHERE,
          `block ${h} left the served chain (reorg) while streaming`,
        );
      }
      chain.run(block);
      yield emit.tail(block, projection);
      h += step;
    }
  }

  const blockMeta = async (height: number): Promise<BlockMeta | undefined> => {
    const top = halted() === undefined ? (tip()?.height ?? -1) : sealedTip();
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
    halted,
    sealedTip,
    floor: () => src.floor(),
    onTip(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    blocks: (projection, from, to, options) => walk(projection, from, to, options?.signal, asBlocks),
    blockFrames: (projection, from, to, options) =>
      options?.runs
        ? walk(projection, from, to, options.signal, asFrameRuns, options.into)
        : walk(projection, from, to, options?.signal, asFrames),
    blockMeta,
    async heightOfHash(wireHash) {
      const inTail = halted() === undefined ? src.tail.heightOfHash(wireHash) : undefined;
      if (inTail !== undefined) return inTail;
      const heights = (await src.resolveHeights?.(displayHex(wireHash))) ?? [];
      for (const height of heights) {
        if (height > sealedTip()) break;
        const meta = await blockMeta(height);
        if (meta && equalBytes(meta.wireHash, wireHash)) return height;
      }
      return undefined;
    },
    lastBlock: tip,
    notifyTip() {
      const current = tip();
      if (current) for (const listener of listeners) listener(current);
    },
  };
}
