import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LightedgeError } from "../../proto/errors.ts";
import { parseBlock } from "../chain/index.ts";
import type { FixedBlocks } from "./chain-blocks.ts";
import { addTxCommitments, type Commitments, noCommitments, POOLS, type Pool } from "./commitments.ts";
import { type CorpusTreeData, loadCorpusTrees } from "./corpus-trees.ts";
import { planStart, type StartPlan } from "./start-frontier.ts";
import type { DevBlock, DevTreeSizes, Network } from "./types.ts";
import { poolActivations } from "./upgrades.ts";

interface IndexEntry {
  network: string;
  height: number;
  hash: string;
  prevHash: string;
  file: string;
  txids: string[];
  time: number;
}

/** A corpus run with what its tree states are computed from. */
export interface CorpusRun extends FixedBlocks {
  /** The note commitments of block `height` (from..to). */
  commitments(height: number): Commitments;
  /** The corpus's real tree states and subtree roots for this network. */
  trees: CorpusTreeData;
  /** The trees after from − 1 (start-frontier.ts). */
  starts: Record<Pool, StartPlan>;
}

/**
 * A consecutive corpus run (`<dir>/index.json` + `blocks/<net>/<h>.hex`) as the fixed start of a
 * dev chain. Tree sizes are the start frontier's (real, or constructed to fit the corpus's real
 * sizes and subtree heights: start-frontier.ts) plus each block's own commitments.
 */
export function loadCorpusRun(dir: string, network: Network, from: number, to: number): CorpusRun {
  const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as { blocks: IndexEntry[] };
  const byHeight = new Map(index.blocks.filter((b) => b.network === network).map((b) => [b.height, b]));
  const raws: { e: IndexEntry; raw: Buffer; commitments: Commitments }[] = [];
  for (let h = from; h <= to; h++) {
    const e = byHeight.get(h);
    if (e === undefined)
      throw new LightedgeError("not-found", "devnode.corpus", `corpus has no ${network} block ${h}`);
    const prev = raws[raws.length - 1];
    if (prev && e.prevHash !== prev.e.hash)
      throw new LightedgeError(
        "chain-break",
        "devnode.corpus",
        `corpus ${network} ${h} does not chain onto ${h - 1}`,
      );
    const raw = Buffer.from(readFileSync(join(dir, e.file), "utf8").trim(), "hex");
    const commitments = noCommitments();
    for (const tx of parseBlock(raw, { strictV6: false }).txs) addTxCommitments(commitments, tx);
    raws.push({ e, raw, commitments });
  }
  const trees = loadCorpusTrees(dir, network);
  const activation = poolActivations(network, false);
  const starts = {} as Record<Pool, StartPlan>;
  for (const pool of POOLS)
    starts[pool] = planStart({
      pool,
      from,
      to,
      activation: activation[pool],
      added: raws.map((r) => r.commitments[pool].length),
      states: trees.states,
      subtrees: trees.subtrees[pool],
      label: `${network}|${pool}|${from}`,
    });
  let sizes: DevTreeSizes = {
    sapling: starts.sapling.size,
    orchard: starts.orchard.size,
    ironwood: starts.ironwood.size,
  };
  const blocks: DevBlock[] = raws.map(({ e, raw, commitments }, i) => {
    sizes = {
      sapling: sizes.sapling + commitments.sapling.length,
      orchard: sizes.orchard + commitments.orchard.length,
      ironwood: sizes.ironwood + commitments.ironwood.length,
    };
    return {
      height: from + i,
      displayHash: e.hash,
      prevDisplayHash: e.prevHash,
      time: e.time,
      raw,
      txids: e.txids,
      treeSizes: sizes,
    };
  });
  return {
    from,
    to,
    get: (h) => blocks[h - from]!,
    commitments: (h) => raws[h - from]!.commitments,
    trees,
    starts,
  };
}
