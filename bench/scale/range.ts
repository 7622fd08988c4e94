import type { ParsedBlock, ParsedTx, SaplingOutput, ShieldedAction } from "../../origin/chain/index.ts";
import { projectBlock } from "../../origin/chain/index.ts";
import { type BlockRandom, blockRandom } from "../../origin/devnode/prng.ts";
import { codecOptions } from "../../origin/index/codec-options.ts";
import { GENESIS_HASHES } from "../../origin/node/network.ts";
import { slabAllocator, wireHashOf } from "../../proto/bytes.ts";
import {
  blockHashEntries,
  encodeSealedRange,
  endsOfEncoded,
  type RangeEnds,
  type RangeHashes,
  rangeKeys,
  type SealedBlockInput,
} from "../../proto/range/index.ts";
import { encodeTreeStateRange, type TreeStateBlock, treeStateKey } from "../../proto/treestate/index.ts";
import { syntheticHash, syntheticHashes } from "./block-hash.ts";
import { frontierMaker } from "./frontier.ts";
import type { PointPools } from "./points.ts";
import { blockProfile, blockTime, NU5, SAPLING_ACTIVATION, TREE_ANCHORS } from "./profile.ts";

/**
 * One mainnet-shaped sealed range: generated compact blocks → the origin's real projections
 * (origin/chain `projectBlock`) → the real range encoder (proto/range) and tree-state encoder
 * (proto/treestate). Deterministic in (seed, range index, payload scale), so workers build ranges
 * independently and a range is rebuilt identically.
 *
 * What is real: every byte layout, every projection, the metadata and its hashes; field elements
 * are canonical (Sapling cmu < r_BLS12-381; Orchard nf/cmx < p_Pallas: top two bits cleared puts
 * them below 2^254, under both moduli), epks are real curve points (points.ts).
 * What is SYNTHETIC: block hashes (pseudorandom bytes with mainnet's leading zeros, block-hash.ts;
 * no header behind them), txids, nullifiers and ciphertexts (random), and the tree-state frontiers
 * — their shape (which nodes exist) follows the real tree size exactly, but node values are hashes
 * of (pool, level, index) (frontier.ts), not Sinsemilla/Pedersen Merkle nodes: computing real
 * frontiers over 124 M leaves is far beyond this tool's time budget. Subtree-root objects are not
 * written.
 */

/** NU6.3 (Ironwood) mainnet activation as the dev node reports it (origin/devnode/info-rpc.ts). */
const IRONWOOD_ACTIVATION = 3_428_143;

export interface RangeObjects {
  index: number;
  objects: { key: string; bytes: Uint8Array }[];
  /** Last block (for the head). */
  tip: { height: number; wireHash: Uint8Array; time: number };
  /** Block-hash index entries of the range's blocks (proto/range/hash-index-codec.ts). */
  hashEntries: RangeHashes;
  /** The range's ends, for its level's range-ends object (proto/range/range-ends.ts). */
  ends: RangeEnds;
  /** Bytes per projection (and meta, trees) for the totals. */
  bytes: { shielded: number; full: number; nullifiers: number; meta: number; trees: number };
}

export interface RangeOptions {
  network: string;
  rangeSize: number;
  payloadScale: number;
  seed: string;
  points: PointPools;
}

/** Tree size after `height` at payload scale `scale`: anchors interpolated linearly, rounded. */
export function treeSizeAfter(height: number, pool: 1 | 2, scale: number): number {
  if (height < 0) return 0;
  const a = TREE_ANCHORS;
  let value: number;
  const last = a[a.length - 1]!;
  if (height >= last[0]) {
    const prev = a[a.length - 2]!;
    value = last[pool] + ((height - last[0]) * (last[pool] - prev[pool])) / (last[0] - prev[0]);
  } else {
    let i = 1;
    while (a[i]![0] < height) i++;
    const [h0, h1] = [a[i - 1]!, a[i]!];
    value = h0[pool] + ((height - h0[0]) * (h1[pool] - h0[pool])) / (h1[0] - h0[0]);
  }
  return Math.round(value * scale);
}

/**
 * Block hash of `height` on the generated chain (wire order): the network's real genesis hash at
 * height 0 (so a node standing in for the chain, bench/scale/scale-node.ts, passes the origin's
 * network check, origin/node/network.ts), else `syntheticHash` (block-hash.ts).
 */
export function blockHashAt(network: string, seed: string, height: number): Uint8Array {
  return genesisHash(network, height) ?? syntheticHash(seed, height);
}

/**
 * Hashes of heights `first - 1 … first + count - 1` (the parent of the first block, then each
 * block), each as blockHashAt gives it, from one keystream call.
 */
function blockHashesFrom(network: string, seed: string, first: number, count: number): Uint8Array[] {
  const from = Math.max(first - 1, 0);
  const bytes = syntheticHashes(seed, from, first + count - from);
  const out: Uint8Array[] = [];
  for (let h = first - 1; h < first + count; h++) {
    const at = 32 * (h - from);
    out.push(genesisHash(network, h) ?? (h < 0 ? new Uint8Array(32) : bytes.subarray(at, at + 32)));
  }
  return out;
}

function genesisHash(network: string, height: number): Uint8Array | undefined {
  const genesis = GENESIS_HASHES[network as keyof typeof GENESIS_HASHES];
  return height === 0 && genesis !== undefined ? wireHashOf(genesis) : undefined;
}

/** Spreads `total` items over `n` buckets uniformly at random (Poisson-like per-block counts). */
function spread(rand: BlockRandom, total: number, n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < total; i++) out[rand.int(n)]!++;
  return out;
}

function stochasticRound(rand: BlockRandom, x: number): number {
  const f = Math.floor(x);
  return f + (rand.float() < x - f ? 1 : 0);
}

const ZERO32 = new Uint8Array(32);
const ZERO8 = new Uint8Array(8);

function canonical(bytes: Uint8Array): Uint8Array {
  bytes[31]! &= 0x3f;
  return bytes;
}

function emptyTx(index: number, txid: Uint8Array): ParsedTx {
  return {
    index,
    version: 5,
    overwintered: true,
    versionGroupId: 0x26a7270a,
    consensusBranchId: 0,
    lockTime: 0,
    expiryHeight: 0,
    vin: [],
    vout: [],
    sapling: { spends: [], outputs: [], valueBalance: null, anchor: null },
    joinSplitCount: 0,
    orchard: null,
    ironwood: null,
    raw: ZERO8,
    offset: 0,
    wireTxid: txid,
  };
}

/** OP_DUP OP_HASH160 <20 random bytes> OP_EQUALVERIFY OP_CHECKSIG, written over keystream bytes. */
function p2pkh(rand: BlockRandom): Uint8Array {
  const s = rand.bytes(25);
  s[0] = 0x76;
  s[1] = 0xa9;
  s[2] = 0x14;
  s[23] = 0x88;
  s[24] = 0xac;
  return s;
}

function transparentOutputs(rand: BlockRandom, n: number): ParsedTx["vout"] {
  const out: ParsedTx["vout"] = [];
  for (let i = 0; i < n; i++)
    out.push({ valueLow: 1 + rand.int(2 ** 31), valueHigh: 0, scriptPubKey: p2pkh(rand) });
  return out;
}

function transparentInputs(rand: BlockRandom, n: number): ParsedTx["vin"] {
  const out: ParsedTx["vin"] = [];
  for (let i = 0; i < n; i++)
    out.push({
      wirePrevoutTxid: rand.bytes(32),
      prevoutIndex: rand.int(3),
      scriptSig: ZERO8,
      sequence: 0xffffffff,
    });
  return out;
}

/** The txs of one block with the given shielded counts (see profile.ts for the shape). */
function blockTxs(
  rand: BlockRandom,
  height: number,
  counts: { outputs: number; actions: number },
  points: PointPools,
  payloadScale: number,
): ParsedTx[] {
  const profile = blockProfile(height);
  const txs: ParsedTx[] = [];
  const coinbase = emptyTx(0, rand.bytes(32));
  coinbase.vout = transparentOutputs(rand, height < 1_046_400 ? 2 : 3);
  txs.push(coinbase);
  const epk = (pool: Uint8Array) => {
    const k = rand.int(points.count);
    return pool.subarray(32 * k, 32 * k + 32);
  };
  for (let left = counts.outputs; left > 0; ) {
    const n = Math.min(left, profile.perTx);
    left -= n;
    const tx = emptyTx(txs.length, rand.bytes(32));
    const spends = profile.spam ? 1 : stochasticRound(rand, n * profile.spendsPerOutput);
    for (let s = 0; s < spends; s++)
      tx.sapling.spends.push({ cv: ZERO32, anchor: null, nf: rand.bytes(32), rk: ZERO32 });
    for (let o = 0; o < n; o++) {
      const output: SaplingOutput = {
        cv: ZERO32,
        cmu: canonical(rand.bytes(32)),
        ephemeralKey: epk(points.jubjub),
        // Only the first 52 bytes are read by the projections (the compact ciphertext).
        encCiphertext: rand.bytes(52),
        outCiphertext: ZERO32,
      };
      tx.sapling.outputs.push(output);
    }
    tx.sapling.valueBalance = ZERO8;
    txs.push(tx);
  }
  for (let left = counts.actions; left > 0; ) {
    const n = Math.min(left, profile.perTx);
    left -= n;
    const tx = emptyTx(txs.length, rand.bytes(32));
    const actions: ShieldedAction[] = [];
    for (let a = 0; a < n; a++) {
      actions.push({
        cv: ZERO32,
        nullifier: canonical(rand.bytes(32)),
        rk: ZERO32,
        cmx: canonical(rand.bytes(32)),
        ephemeralKey: epk(points.pallas),
        encCiphertext: rand.bytes(52),
        outCiphertext: ZERO32,
      });
    }
    tx.orchard = { actions, flags: 3, valueBalance: ZERO8, anchor: ZERO32 };
    txs.push(tx);
  }
  const transparent = stochasticRound(rand, profile.transparentTxs * payloadScale * 2 * rand.float());
  for (let t = 0; t < transparent; t++) {
    const tx = emptyTx(txs.length, rand.bytes(32));
    tx.vin = transparentInputs(rand, 2);
    tx.vout = transparentOutputs(rand, 2);
    txs.push(tx);
  }
  return txs;
}

export function createRangeBuilder(o: RangeOptions) {
  const sapling = frontierMaker(o.seed, "sapling");
  const orchard = frontierMaker(o.seed, "orchard");
  const ironwood = frontierMaker(o.seed, "ironwood");
  return (index: number): RangeObjects => {
    const first = index * o.rangeSize;
    const last = first + o.rangeSize - 1;
    const rand = blockRandom(`scale|${o.seed}|${o.payloadScale}`, index, 0);
    // Per-range totals are fixed by the anchors, so tree sizes at a range's start are known
    // without generating earlier ranges; within the range they are spread at random.
    let saplingSize = treeSizeAfter(first - 1, 1, o.payloadScale);
    let orchardSize = treeSizeAfter(first - 1, 2, o.payloadScale);
    const outputs = spread(rand, treeSizeAfter(last, 1, o.payloadScale) - saplingSize, o.rangeSize);
    const actions = spread(rand, treeSizeAfter(last, 2, o.payloadScale) - orchardSize, o.rangeSize);
    const blocks: SealedBlockInput[] = [];
    const trees: TreeStateBlock[] = [];
    // Messages live until encodeSealedRange copies them into the range's frames.
    const alloc = slabAllocator(256 * 1024);
    const hashes = blockHashesFrom(o.network, o.seed, first, o.rangeSize);
    let prev = hashes[0]!;
    for (let k = 0; k < o.rangeSize; k++) {
      const height = first + k;
      const wireHash = hashes[k + 1]!;
      const time = blockTime(height);
      const txs = blockTxs(
        rand,
        height,
        { outputs: outputs[k]!, actions: actions[k]! },
        o.points,
        o.payloadScale,
      );
      saplingSize += outputs[k]!;
      orchardSize += actions[k]!;
      const parsed = {
        header: { wirePrevHash: prev, time },
        wireHash,
        height,
        txs,
        size: 0,
      } as unknown as ParsedBlock; // the projections read only these header fields
      const treeSizes = { sapling: saplingSize, orchard: orchardSize, ironwood: 0 };
      const messages = projectBlock(parsed, treeSizes, alloc);
      blocks.push({ height, wireHash, wirePrevHash: prev, time, treeSizes, messages });
      trees.push({
        height,
        wireHash,
        time,
        sapling: height >= SAPLING_ACTIVATION ? sapling(saplingSize) : undefined,
        orchard: height >= NU5 ? orchard(orchardSize) : undefined,
        ironwood: height >= IRONWOOD_ACTIVATION ? ironwood(0) : undefined,
      });
      prev = wireHash;
    }
    const input = { network: o.network, rangeSize: o.rangeSize, index, blocks };
    const encoded = encodeSealedRange(input, codecOptions);
    const treeBytes = encodeTreeStateRange({ network: chainName(o.network), blocks: trees }, codecOptions);
    const keys = rangeKeys(o.network, o.rangeSize, index);
    const lastBlock = blocks[blocks.length - 1]!;
    return {
      index,
      objects: [
        { key: keys.data.shielded, bytes: encoded.data.shielded },
        { key: keys.data.full, bytes: encoded.data.full },
        { key: keys.data.nullifiers, bytes: encoded.data.nullifiers },
        { key: keys.meta, bytes: encoded.meta },
        { key: treeStateKey(o.network, o.rangeSize, index), bytes: treeBytes },
      ],
      tip: { height: lastBlock.height, wireHash: lastBlock.wireHash, time: lastBlock.time },
      hashEntries: blockHashEntries(blocks),
      ends: endsOfEncoded(input, encoded),
      bytes: {
        shielded: encoded.data.shielded.length,
        full: encoded.data.full.length,
        nullifiers: encoded.data.nullifiers.length,
        meta: encoded.meta.length,
        trees: treeBytes.length,
      },
    };
  };
}

/** TreeState.network as the node names the chain ("main", "test", "regtest"). */
export function chainName(network: string): string {
  return network === "mainnet" ? "main" : network === "testnet" ? "test" : network;
}
