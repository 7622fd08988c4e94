/**
 * Mainnet's public profile, as the generator follows it. Pure data and arithmetic, no I/O.
 *
 * Sources (all public):
 * - Note commitment tree sizes = cumulative Sapling outputs and Orchard actions. They are read from
 *   the Android SDK checkpoints (zcash/zcash-android-wallet-sdk, `checkpoint/mainnet/*.json`,
 *   commit a23bcbe2, copied byte for byte into test/corpus/chain/treestate/mainnet/ — see that
 *   folder's README) by parsing each `saplingTree` / `orchardTree` finalState and counting leaves
 *   (proto/treestate/legacy-tree.ts `legacyTreeSize`). Between two checkpoints outputs are spread
 *   evenly per block, so every era's totals match mainnet's to the leaf at the checkpoints.
 * - The 2022–23 spam: the Sapling tree grows by 51 M leaves between 1,700,000 and 1,800,000 and the
 *   Orchard tree by 38 M between 1,700,000 and 2,000,000 (the checkpoints above); the spam began
 *   around 1,720,000 (June 2022), so the 1,700,000 → 1,800,000 interval gets one extra anchor at
 *   1,720,000 that continues the pre-spam rate (an assumption, marked below).
 * - Transparent load: zecdev/compact-block-data-analysis (`docs/analysis/statistical_report.md`,
 *   2025-10-13, 13,984 sampled blocks 419,402–3,098,051) measures 2.13 KB per compact block
 *   without transparent data and 3.75 KB with it: ≈ 1.6 KB of transparent inputs/outputs per block.
 * - Block times: 150 s before Blossom (653,600), 75 s after (ZIP 208); genesis time 1477641360.
 *
 * Assumptions (no public per-tx figure found; they move the totals by < 2 %, outputs dominate):
 * outputs per shielded tx (2 normally, 50 in spam blocks), Sapling spends per output (0.5; 1 per
 * spam tx), transparent txs per block (6, 2 inputs and 2 outputs each).
 */

/** [height, Sapling tree size, Orchard tree size] after that block. */
export const TREE_ANCHORS: readonly (readonly [number, number, number])[] = Object.freeze([
  [0, 0, 0],
  [419_200, 0, 0],
  [500_000, 30_699, 0],
  [600_000, 93_144, 0],
  [700_000, 140_784, 0],
  [800_000, 218_181, 0],
  [900_000, 318_364, 0],
  [1_000_000, 409_433, 0],
  [1_100_000, 508_266, 0],
  [1_200_000, 611_746, 0],
  [1_300_000, 682_166, 0],
  [1_400_000, 744_485, 0],
  [1_500_000, 1_007_481, 0],
  [1_600_000, 1_095_159, 0],
  [1_680_000, 1_164_847, 0],
  [1_687_104, 1_170_431, 0],
  [1_700_000, 1_177_643, 296],
  // Assumption: the pre-spam rate (≈ 0.56 outputs/block, 1.6M → 1.7M) holds until 1,720,000.
  [1_720_000, 1_188_900, 2_000],
  [1_800_000, 52_350_136, 4_522_350],
  [2_000_000, 71_769_711, 38_387_232],
  [2_200_000, 72_951_427, 48_647_217],
  [2_400_000, 73_205_537, 48_706_001],
  [2_600_000, 73_457_384, 48_902_754],
  [2_727_500, 73_717_837, 48_953_696],
  [3_000_000, 73_783_440, 49_138_100],
  [3_200_000, 73_854_922, 49_631_566],
  [3_400_000, 73_928_158, 50_163_005],
  [3_429_810, 73_938_773, 50_266_283],
  [3_444_780, 73_944_707, 50_362_760],
]);

export const SAPLING_ACTIVATION = 419_200;
export const BLOSSOM = 653_600;
export const NU5 = 1_687_104;
const GENESIS_TIME = 1_477_641_360;

/** Blocks whose mean shielded output count is above this are modelled as spam-shaped. */
const SPAM_OUTPUTS_PER_BLOCK = 40;

export interface BlockProfile {
  /** Expected Sapling outputs and Orchard actions in the block (payload scale 1). */
  saplingOutputs: number;
  orchardActions: number;
  /** Expected shielded outputs/actions per shielded tx. */
  perTx: number;
  /** Sapling spends per Sapling output (normal) — spam txs get 1 spend each instead. */
  spendsPerOutput: number;
  spam: boolean;
  /** Expected transparent-only txs (besides the coinbase). */
  transparentTxs: number;
}

/** Per-block rates between anchors: outputs added ÷ blocks in the interval. */
function rateAt(height: number): { sapling: number; orchard: number } {
  const a = TREE_ANCHORS;
  // Indexed, not destructured: this runs for every generated block.
  for (let i = 1; i < a.length; i++) {
    const x1 = a[i]!;
    const x0 = a[i - 1]!;
    if (height <= x1[0]) {
      const blocks = x1[0] - x0[0];
      return { sapling: (x1[1] - x0[1]) / blocks, orchard: (x1[2] - x0[2]) / blocks };
    }
  }
  // Past the last checkpoint: continue the rate of the last interval.
  const [h1, s1, o1] = a[a.length - 1]!;
  const [h0, s0, o0] = a[a.length - 2]!;
  return { sapling: (s1 - s0) / (h1 - h0), orchard: (o1 - o0) / (h1 - h0) };
}

export function blockProfile(height: number): BlockProfile {
  const { sapling, orchard } = height < SAPLING_ACTIVATION ? { sapling: 0, orchard: 0 } : rateAt(height);
  const orchardActions = height < NU5 ? 0 : orchard;
  const spam = sapling + orchardActions > SPAM_OUTPUTS_PER_BLOCK;
  return {
    saplingOutputs: sapling,
    orchardActions,
    perTx: spam ? 50 : 2,
    spendsPerOutput: 0.5,
    spam,
    transparentTxs: height < 100 ? 0 : 6,
  };
}

/** Header time of `height`: 150 s blocks before Blossom, 75 s after (ZIP 208). */
export function blockTime(height: number): number {
  if (height < BLOSSOM) return GENESIS_TIME + 150 * height;
  return GENESIS_TIME + 150 * BLOSSOM + 75 * (height - BLOSSOM);
}
