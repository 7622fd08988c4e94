import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { CompactBlockSchema } from "../../proto/index.ts";
import { parseBlock } from "./block.ts";
import { ChainParseError } from "./errors.ts";
import { projectBlock } from "./project.ts";
import type { ParsedBlock } from "./types.ts";

/** A deterministic PRNG (mulberry32) so fuzz failures replay from their seed. */
export function createRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A real block prepared for mutation: its bytes, parse, full projection and count offsets. */
export interface FuzzSubject {
  name: string;
  raw: Uint8Array;
  block: ParsedBlock;
  full: Uint8Array;
  countSites: number[];
  /** Byte ranges where a change may legitimately alter the output without an error. */
  freeRanges: [number, number][];
}

export function createSubject(name: string, raw: Uint8Array): FuzzSubject {
  const countSites: number[] = [];
  const block = parseBlock(raw, { countSites });
  // Header bytes (but the merkle root) change the hash; that is a different, valid block. A v5+
  // coinbase scriptSig (the BIP34 height) is outside the ZIP 244 txid, so no root catches it.
  const freeRanges: [number, number][] = [
    [0, 36],
    [68, block.header.raw.length],
  ];
  const coinbase = block.txs[0]!;
  if (coinbase.version >= 5 && coinbase.vin[0]) {
    const script = coinbase.vin[0].scriptSig;
    const start = script.byteOffset - raw.byteOffset;
    freeRanges.push([start - 1, start + script.length]);
  }
  return { name, raw, block, full: projectBlock(block).full, countSites, freeRanges };
}

export interface Mutation {
  kind: "flip" | "byte" | "truncate" | "inflate" | "trailing";
  /** First and last changed offsets. */
  from: number;
  to: number;
  bytes: Uint8Array;
}

const inflations = [
  [0xfc],
  [0xfd, 0xff, 0xff],
  [0xfe, 0xff, 0xff, 0xff, 0x7f],
  [0xfe, 0xff, 0xff, 0xff, 0xff],
  [0xff],
];

export function mutate(s: FuzzSubject, rng: () => number): Mutation {
  const raw = s.raw;
  const pick = rng();
  // Three in four point mutations hit transaction bytes: the header alone is 1487 of a typical
  // small block's few thousand bytes, and header changes only ever make a different valid block.
  const body = s.block.header.raw.length;
  const at = rng() < 0.75 ? body + Math.floor(rng() * (raw.length - body)) : Math.floor(rng() * raw.length);
  if (pick < 0.4) {
    const bytes = raw.slice();
    bytes[at]! ^= 1 << Math.floor(rng() * 8);
    return { kind: "flip", from: at, to: at, bytes };
  }
  if (pick < 0.55) {
    const bytes = raw.slice();
    bytes[at] = Math.floor(rng() * 256);
    return { kind: "byte", from: at, to: at, bytes };
  }
  if (pick < 0.7) return { kind: "truncate", from: at, to: raw.length, bytes: raw.slice(0, at) };
  if (pick < 0.95) {
    const site = s.countSites[Math.floor(rng() * s.countSites.length)]!;
    const with_ =
      rng() < 0.3
        ? [Math.min(0xfc, raw[site]! + 1 + Math.floor(rng() * 4))]
        : inflations[Math.floor(rng() * inflations.length)]!;
    const bytes = new Uint8Array(raw.length + with_.length - 1);
    bytes.set(raw.subarray(0, site));
    bytes.set(with_, site);
    bytes.set(raw.subarray(site + 1), site + with_.length);
    return { kind: "inflate", from: site, to: site + with_.length - 1, bytes };
  }
  const extra = 1 + Math.floor(rng() * 3);
  const bytes = new Uint8Array(raw.length + extra);
  bytes.set(raw);
  return { kind: "trailing", from: raw.length, to: raw.length + extra - 1, bytes };
}

export type Outcome = "rejected" | "same" | "changed-unchecked";

/**
 * Runs one mutated block. Returns how it went, or throws a description of a violation: an
 * untyped exception, invalid protobuf, or success with different output outside `freeRanges`.
 */
export function runCase(s: FuzzSubject, m: Mutation): Outcome {
  let full: Uint8Array;
  try {
    full = projectBlock(parseBlock(m.bytes)).full;
  } catch (err) {
    if (err instanceof ChainParseError && err.kind === "malformed") return "rejected";
    throw new Error(`${s.name} ${m.kind}@${m.from}: untyped ${String(err)}`);
  }
  const again = toBinary(CompactBlockSchema, fromBinary(CompactBlockSchema, full));
  if (Buffer.compare(again, full) !== 0)
    throw new Error(`${s.name} ${m.kind}@${m.from}: not canonical protobuf`);
  if (Buffer.compare(full, s.full) === 0) return "same";
  const free = s.freeRanges.some(([a, b]) => m.from >= a && m.to < b) && m.bytes.length === s.raw.length;
  if (!free)
    throw new Error(`${s.name} ${m.kind}@${m.from}-${m.to}: parsed to a different block without an error`);
  return "changed-unchecked";
}
