import { parseBlock, projectBlock } from "../../origin/chain/index.ts";
import { concatBytes, displayHex } from "../../proto/bytes.ts";
import {
  blockHashEntries,
  bundleKey,
  DEFAULT_BUNDLE_MAX_BYTES,
  type EncodedRange,
  encodeHead,
  encodeSealedRange,
  endsOfEncoded,
  firstBundle,
  HashIndexBuilder,
  type HeadObject,
  headKey,
  rangeKeys,
  type SealedBlockInput,
} from "../../proto/range/index.ts";
import { corpusIndex, readChainHex } from "./chain.ts";

/** One network's seed: which corpus run, the range size, and how much of it is sealed. */
export interface SeedSpec {
  network: "mainnet" | "testnet";
  /** First and last height of the corpus run used. */
  from: number;
  to: number;
  rangeSize: number;
  /** Number of whole ranges sealed from the first range boundary ≥ from; the rest is tail. */
  sealedRanges: number;
}

/** The corpus blocks of one network as the real origin code projects them (unframed protobuf). */
export interface SeedBlock {
  height: number;
  wireHash: Uint8Array;
  wirePrevHash: Uint8Array;
  full: Uint8Array;
  shielded: Uint8Array;
  nullifiers: Uint8Array;
}

export interface Seed {
  /** Store objects: key → bytes (ranges and heads). */
  objects: Map<string, Uint8Array>;
  blocks: Map<string, SeedBlock[]>;
  heads: Map<string, HeadObject>;
}

/**
 * Ranges per hash-index epoch in the seed: small, so both levels exist (mainnet: a base of 4 ranges
 * and a recent level of 3; testnet: 16 and 2).
 */
export const SEED_HASH_EPOCH_RANGES = 4;

/**
 * Ranges per bundle in the seed (proto/range/bundles.ts): small, so whole streams read bundles and
 * single ranges side by side (mainnet: one bundle of 4 of its 7 ranges; testnet: 4 of 4, of 18).
 */
export const SEED_BUNDLE_RANGES = 4;

/** Default test seed: consecutive real runs, 10-block ranges, the newest blocks left as tail. */
export const TEST_SEEDS: readonly SeedSpec[] = [
  { network: "mainnet", from: 663150, to: 663250, rangeSize: 10, sealedRanges: 7 },
  { network: "testnet", from: 1028400, to: 1028600, rangeSize: 10, sealedRanges: 18 },
];

export function buildSeed(specs: readonly SeedSpec[] = TEST_SEEDS): Seed {
  const seed: Seed = { objects: new Map(), blocks: new Map(), heads: new Map() };
  for (const spec of specs) {
    const blocks = corpusBlocks(spec);
    seed.blocks.set(spec.network, blocks);
    const firstIndex = Math.ceil(spec.from / spec.rangeSize);
    const hashIndex = new HashIndexBuilder({
      network: spec.network,
      rangeSize: spec.rangeSize,
      firstIndex,
      epochRanges: SEED_HASH_EPOCH_RANGES,
    });
    const encodedRanges = new Map<number, EncodedRange>();
    for (let i = 0; i < spec.sealedRanges; i++) {
      const index = firstIndex + i;
      const first = index * spec.rangeSize;
      const slice = blocks.filter((b) => b.height >= first && b.height < first + spec.rangeSize);
      const input = {
        network: spec.network,
        rangeSize: spec.rangeSize,
        index,
        blocks: slice.map(toSealedInput),
      };
      const encoded = encodeSealedRange(input);
      encodedRanges.set(index, encoded);
      const keys = rangeKeys(spec.network, spec.rangeSize, index);
      seed.objects.set(keys.meta, encoded.meta);
      for (const p of ["shielded", "full", "nullifiers"] as const)
        seed.objects.set(keys.data[p], encoded.data[p]);
      hashIndex.add(index, blockHashEntries(input.blocks), endsOfEncoded(input, encoded));
    }
    for (const o of hashIndex.objects()) seed.objects.set(o.key, o.bytes);
    // Bundles: each projection's data objects of SEED_BUNDLE_RANGES aligned ranges, concatenated.
    let bundledTo = Math.floor(firstIndex / SEED_BUNDLE_RANGES) * SEED_BUNDLE_RANGES;
    const end = firstIndex + spec.sealedRanges;
    for (let b = firstBundle(firstIndex, SEED_BUNDLE_RANGES); (b + 1) * SEED_BUNDLE_RANGES <= end; b++) {
      const members = Array.from(
        { length: SEED_BUNDLE_RANGES },
        (_, k) => encodedRanges.get(b * SEED_BUNDLE_RANGES + k)!,
      );
      for (const p of ["shielded", "full", "nullifiers"] as const) {
        const key = bundleKey(spec.network, spec.rangeSize, SEED_BUNDLE_RANGES, b, p);
        seed.objects.set(key, concatBytes(members.map((e) => e.data[p])));
      }
      bundledTo = (b + 1) * SEED_BUNDLE_RANGES;
    }
    const tipHeight = (firstIndex + spec.sealedRanges) * spec.rangeSize - 1;
    const tip = blocks.find((b) => b.height === tipHeight)!;
    const head: HeadObject = {
      format: "lightedge-head",
      version: 1,
      network: spec.network,
      rangeSize: spec.rangeSize,
      firstHeight: firstIndex * spec.rangeSize,
      rangeCount: spec.sealedRanges,
      tip: { height: tipHeight, displayHash: displayHex(tip.wireHash), time: 0 },
      updatedAt: new Date(0).toISOString(),
      lightdInfo: {
        chainName: spec.network === "mainnet" ? "main" : "test",
        saplingActivationHeight: spec.network === "mainnet" ? 419200 : 280000,
        consensusBranchId: "2bb40e60",
        blockHeight: spec.to,
        estimatedHeight: spec.to,
        upgradeName: "Blossom",
        upgradeHeight: 0,
        zcashdBuild: "v2.1.0",
        zcashdSubversion: "/Zebra:2.1.0/",
      },
      hashIndex: hashIndex.headField,
      bundles: { ranges: SEED_BUNDLE_RANGES, maxBytes: DEFAULT_BUNDLE_MAX_BYTES, to: bundledTo },
    };
    seed.heads.set(spec.network, head);
    seed.objects.set(headKey(spec.network), encodeHead(head));
  }
  return seed;
}

function corpusBlocks(spec: SeedSpec): SeedBlock[] {
  const entries = corpusIndex()
    .blocks.filter((b) => b.network === spec.network && b.height >= spec.from && b.height <= spec.to)
    .sort((a, b) => a.height - b.height);
  return entries.map((entry) => {
    const parsed = parseBlock(readChainHex(entry.file));
    const p = projectBlock(parsed);
    return {
      height: parsed.height,
      wireHash: parsed.wireHash,
      wirePrevHash: parsed.header.wirePrevHash,
      ...p,
    };
  });
}

function toSealedInput(b: SeedBlock): SealedBlockInput {
  return {
    height: b.height,
    wireHash: b.wireHash,
    wirePrevHash: b.wirePrevHash,
    time: 0,
    treeSizes: { sapling: 0, orchard: 0, ironwood: 0 },
    messages: { shielded: b.shielded, full: b.full, nullifiers: b.nullifiers },
  };
}

/** For injecting into workerd tests: plain JSON with base64 bytes. */
export function seedToJson(seed: Seed): SeedJson {
  const b64 = (u: Uint8Array) => Buffer.from(u).toString("base64");
  return {
    objects: Object.fromEntries([...seed.objects].map(([k, v]) => [k, b64(v)])),
    blocks: Object.fromEntries(
      [...seed.blocks].map(([n, list]) => [
        n,
        list.map((b) => ({
          height: b.height,
          hash: b64(b.wireHash),
          prevHash: b64(b.wirePrevHash),
          full: b64(b.full),
          shielded: b64(b.shielded),
          nullifiers: b64(b.nullifiers),
        })),
      ]),
    ),
    tips: Object.fromEntries([...seed.heads].map(([n, h]) => [n, h.tip?.height ?? -1])),
  };
}

export interface SeedJson {
  objects: Record<string, string>;
  blocks: Record<
    string,
    { height: number; hash: string; prevHash: string; full: string; shielded: string; nullifiers: string }[]
  >;
  /** Sealed tip per network. */
  tips: Record<string, number>;
}
