import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LightedgeError } from "../../proto/errors.ts";
import { countAdded, type FixedBlocks } from "./chain.ts";
import type { DevBlock, DevTreeSizes, Network } from "./types.ts";

interface IndexEntry {
  network: string;
  height: number;
  hash: string;
  prevHash: string;
  file: string;
  txids: string[];
  time: number;
}

/**
 * A consecutive corpus run (`<dir>/index.json` + `blocks/<net>/<h>.hex`) as the fixed start of a
 * dev chain. Tree sizes: increments are exact (counted from each block); the base is the size in
 * the newest tree-state checkpoint at or below `from` (`treestate/<net>/<h>.json`, decoded from
 * its finalState frontier), so it is exact only when that checkpoint is `from − 1` or the pool has
 * not activated; otherwise it undercounts the commitments of the gap, uniformly for every block.
 */
export function loadCorpusRun(dir: string, network: Network, from: number, to: number): FixedBlocks {
  const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as { blocks: IndexEntry[] };
  const byHeight = new Map(index.blocks.filter((b) => b.network === network).map((b) => [b.height, b]));
  const blocks: DevBlock[] = [];
  let sizes = baseSizes(dir, network, from);
  for (let h = from; h <= to; h++) {
    const e = byHeight.get(h);
    if (e === undefined)
      throw new LightedgeError("not-found", "devnode.corpus", `corpus has no ${network} block ${h}`);
    const prev = blocks[blocks.length - 1];
    if (prev && e.prevHash !== prev.displayHash)
      throw new LightedgeError(
        "chain-break",
        "devnode.corpus",
        `corpus ${network} ${h} does not chain onto ${h - 1}`,
      );
    const raw = Buffer.from(readFileSync(join(dir, e.file), "utf8").trim(), "hex");
    const added = countAdded(raw);
    sizes = {
      sapling: sizes.sapling + added.sapling,
      orchard: sizes.orchard + added.orchard,
      ironwood: sizes.ironwood + added.ironwood,
    };
    blocks.push({
      height: h,
      displayHash: e.hash,
      prevDisplayHash: e.prevHash,
      time: e.time,
      raw,
      txids: e.txids,
      treeSizes: sizes,
    });
  }
  return { from, to, get: (h) => blocks[h - from]! };
}

function baseSizes(dir: string, network: Network, from: number): DevTreeSizes {
  const sub = join(dir, "treestate", network);
  let best: { height: number; file: string } | undefined;
  for (const f of safeList(sub)) {
    const height = Number.parseInt(f, 10);
    if (f.endsWith(".json") && height < from && (!best || height > best.height)) best = { height, file: f };
  }
  if (!best) return { sapling: 0, orchard: 0, ironwood: 0 };
  const cp = JSON.parse(readFileSync(join(sub, best.file), "utf8")) as Record<string, string | undefined>;
  return {
    sapling: frontierSize(cp.saplingTree),
    orchard: frontierSize(cp.orchardTree),
    ironwood: frontierSize(cp.ironwoodTree),
  };
}

function safeList(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/**
 * Leaf count of a legacy CommitmentTree encoding (z_gettreestate finalState): Option left,
 * Option right, CompactSize n, n × Option parent; parent i stands for 2^(i+1) leaves.
 */
export function frontierSize(hex: string | undefined): number {
  if (!hex) return 0;
  const b = Buffer.from(hex, "hex");
  let pos = 0;
  const opt = () => {
    if (b[pos++] !== 1) return 0;
    pos += 32;
    return 1;
  };
  let size = opt() + opt();
  const n = b[pos++]!;
  for (let i = 0; i < n && pos < b.length; i++) if (opt()) size += 2 ** (i + 1);
  return size;
}
