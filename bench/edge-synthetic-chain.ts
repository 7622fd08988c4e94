import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes, displayHex } from "../proto/bytes.ts";
import { encodeFrame, FLAG_GRPC_WEB_TRAILER } from "../proto/frame.ts";
import { CompactBlockSchema, CompactTxSchema } from "../proto/index.ts";
import type { Projection } from "../proto/range/index.ts";
import {
  encodeHead,
  encodeSealedRange,
  headKey,
  rangeKeys,
  type SealedBlockInput,
} from "../proto/range/index.ts";
import { buildSeed } from "../test/support/seed-ranges.ts";

/** A synthetic chain for the edge bench: store objects plus the exact body a range answer has. */
export interface SyntheticChain {
  objects: Map<string, Uint8Array>;
  /** Shielded frames of every block, then a gRPC-web OK trailer: what the edge sends. */
  body: Uint8Array;
}

/**
 * `n` chained blocks from `first` (a range boundary) made of real corpus transactions. Corpus
 * blocks are small (≈ 0.13 KB shielded), so each synthetic block gathers the transactions of
 * consecutive corpus blocks until its shielded message reaches `targetBytes` (mainnet averages
 * ≈ 5.7 KB). Messages are assembled from pre-encoded transactions: a repeated field may be written
 * as concatenated entries, so no per-block re-encoding of transactions is needed.
 */
export function syntheticChain(
  n: number,
  first: number,
  rangeSize: number,
  targetBytes: number,
): SyntheticChain {
  const sources = corpusSources();
  const objects = new Map<string, Uint8Array>();
  const frames: Uint8Array[] = [];
  let prev = new Uint8Array(32);
  let batch: SealedBlockInput[] = [];
  let next = 0;
  for (let i = 0; i < n; i++) {
    const height = first + i;
    const hash = sha256(new TextEncoder().encode(`block ${height}`));
    const parts: Record<Projection, Uint8Array[]> = { shielded: [], full: [], nullifiers: [] };
    let size = 0;
    do {
      const src = sources[next++ % sources.length]!;
      for (const p of ["shielded", "full", "nullifiers"] as const) parts[p].push(src[p]);
      size += src.shielded.length;
    } while (size < targetBytes);
    const head = toBinary(
      CompactBlockSchema,
      create(CompactBlockSchema, { height: BigInt(height), hash, prevHash: prev }),
    );
    const messages = {
      shielded: concatBytes([head, ...parts.shielded]),
      full: concatBytes([head, ...parts.full]),
      nullifiers: concatBytes([head, ...parts.nullifiers]),
    };
    frames.push(encodeFrame(messages.shielded));
    batch.push({
      height,
      wireHash: hash,
      wirePrevHash: prev,
      time: 0,
      treeSizes: { sapling: 0, orchard: 0, ironwood: 0 },
      messages,
    });
    prev = hash;
    if (batch.length === rangeSize) {
      const index = Math.floor(batch[0]!.height / rangeSize);
      const enc = encodeSealedRange({ network: "mainnet", rangeSize, index, blocks: batch });
      const keys = rangeKeys("mainnet", rangeSize, index);
      objects.set(keys.meta, enc.meta);
      for (const p of ["shielded", "full", "nullifiers"] as const) objects.set(keys.data[p], enc.data[p]);
      batch = [];
    }
  }
  objects.set(headKey("mainnet"), headObject(first, n, rangeSize, prev));
  frames.push(encodeFrame(new TextEncoder().encode("grpc-status: 0\r\n"), FLAG_GRPC_WEB_TRAILER));
  return { objects, body: concatBytes(frames) };
}

/** Each corpus block's transactions as encoded `vtx` field entries (tag 7, length-delimited). */
function corpusSources(): Record<Projection, Uint8Array>[] {
  const seed = buildSeed([
    { network: "mainnet", from: 663150, to: 663250, rangeSize: 10, sealedRanges: 1 },
    { network: "testnet", from: 1028400, to: 1028600, rangeSize: 10, sealedRanges: 1 },
  ]);
  const blocks = [...seed.blocks.get("mainnet")!, ...seed.blocks.get("testnet")!];
  const vtxField = (bytes: Uint8Array) =>
    concatBytes(
      fromBinary(CompactBlockSchema, bytes).vtx.map((tx) => {
        const m = toBinary(CompactTxSchema, tx);
        return concatBytes([new Uint8Array([0x3a]), varint(m.length), m]);
      }),
    );
  return blocks.map((b) => ({
    shielded: vtxField(b.shielded),
    full: vtxField(b.full),
    nullifiers: vtxField(b.nullifiers),
  }));
}

function headObject(first: number, n: number, rangeSize: number, tipHash: Uint8Array): Uint8Array {
  const tip = first + n - 1;
  return encodeHead({
    format: "lightedge-head",
    version: 1,
    network: "mainnet",
    rangeSize,
    firstHeight: first,
    rangeCount: n / rangeSize,
    tip: { height: tip, displayHash: displayHex(tipHash), time: 0 },
    updatedAt: new Date().toISOString(),
    lightdInfo: {
      chainName: "main",
      saplingActivationHeight: 419200,
      consensusBranchId: "c8e71055",
      blockHeight: tip,
      estimatedHeight: tip,
      upgradeName: "",
      upgradeHeight: 0,
      zcashdBuild: "",
      zcashdSubversion: "",
    },
  });
}

function varint(v: number): Uint8Array {
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return new Uint8Array(out);
}
