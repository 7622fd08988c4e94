// Storage overhead of the sealed-range format: frame headers per projection, and the metadata
// object, each against the raw protobuf bytes. Used by bench/range-codec.ts.
import { parseBlock, projectBlock } from "../origin/chain/index.ts";
import { FRAME_HEADER_BYTES } from "../proto/frame.ts";
import { type EncodedRange, encodeSealedRange, PROJECTIONS, type Projection } from "../proto/range/index.ts";
import { corpusIndex, hasChain, readChainHex } from "../test/support/chain.ts";

/**
 * Synthetic mainnet-sized blocks: shielded compact bytes average 5,700 per block (the mainnet
 * figure in edge-streaming.md); full and nullifiers keep the ratio to shielded measured on the
 * corpus's NU5-era mainnet blocks (printed as ratio.*). Sizes vary ±50 % around the mean.
 */
export function mainnetSizes(): (height: number) => Record<Projection, number> {
  const r = corpusRatios();
  return (height) => {
    const wobble = 0.5 + ((height * 2654435761) % 1000) / 1000;
    const shielded = Math.round(5700 * wobble);
    return { shielded, full: Math.round(shielded * r.full), nullifiers: Math.round(shielded * r.nullifiers) };
  };
}

let ratios: { full: number; nullifiers: number } | undefined;

function corpusRatios(): { full: number; nullifiers: number } {
  if (ratios) return ratios;
  if (!hasChain) {
    ratios = { full: 1.5, nullifiers: 0.15 };
    return ratios;
  }
  const sum = { full: 0, shielded: 0, nullifiers: 0 };
  for (const b of corpusIndex().blocks.filter((b) => b.network === "mainnet" && b.height >= 1_687_104)) {
    const p = projectBlock(parseBlock(readChainHex(b.file)));
    for (const k of PROJECTIONS) sum[k] += p[k].length;
  }
  ratios = { full: sum.full / sum.shielded, nullifiers: sum.nullifiers / sum.shielded };
  return ratios;
}

/** Overhead figures for one encoded range (or several summed). */
export function overheadOf(label: string, ...ranges: EncodedRange[]): Record<string, number> {
  const out: Record<string, number> = {};
  let rawTotal = 0;
  let metaTotal = 0;
  for (const p of PROJECTIONS) {
    let stored = 0;
    let blocks = 0;
    for (const r of ranges) {
      stored += r.data[p].length;
      blocks += decodeCount(r);
    }
    const raw = stored - blocks * FRAME_HEADER_BYTES;
    rawTotal += raw;
    out[`overhead.${label}.${p}.rawBytesPerBlock`] = raw / blocks;
    out[`overhead.${label}.${p}.framePct`] = (100 * blocks * FRAME_HEADER_BYTES) / raw;
  }
  for (const r of ranges) metaTotal += r.meta.length;
  out[`overhead.${label}.metaPctOfAllProjections`] = (100 * metaTotal) / rawTotal;
  out[`overhead.${label}.totalPct`] =
    (100 * (metaTotal + ranges.reduce((n, r) => n + decodeCount(r) * 3 * FRAME_HEADER_BYTES, 0))) / rawTotal;
  out[`ratio.full`] = corpusRatios().full;
  out[`ratio.nullifiers`] = corpusRatios().nullifiers;
  return out;
}

function decodeCount(r: EncodedRange): number {
  return new DataView(r.meta.buffer, r.meta.byteOffset).getUint32(40, false);
}

/** Every consecutive corpus run sealed as one range each (range size = run length, index 0 style). */
export function corpusOverhead(): Record<string, number> {
  if (!hasChain) return {};
  const index = corpusIndex();
  const ranges: EncodedRange[] = [];
  for (const b of index.blocks) {
    const parsed = parseBlock(readChainHex(b.file));
    const treeSizes = { sapling: 0, orchard: 0, ironwood: 0 };
    ranges.push(
      encodeSealedRange({
        network: b.network,
        rangeSize: 1,
        index: b.height,
        blocks: [
          {
            height: b.height,
            wireHash: parsed.wireHash,
            wirePrevHash: parsed.header.wirePrevHash,
            time: parsed.header.time,
            treeSizes,
            messages: projectBlock(parsed, treeSizes),
          },
        ],
      }),
    );
  }
  // Frame overhead is per block whatever the range size; metadata is amortized as in 1,000-block
  // ranges (76 + 120 + 32 fixed bytes per range, 60 bytes per block), not per one-block range.
  const figures = overheadOf("corpus", ...ranges);
  const blocks = ranges.length;
  let raw = 0;
  for (const p of PROJECTIONS) raw += figures[`overhead.corpus.${p}.rawBytesPerBlock`]! * blocks;
  const meta1000 = blocks * 60 + (blocks / 1000) * 228;
  figures["overhead.corpus.metaPctOfAllProjections"] = (100 * meta1000) / raw;
  figures["overhead.corpus.totalPct"] = (100 * (meta1000 + blocks * 3 * FRAME_HEADER_BYTES)) / raw;
  return figures;
}
