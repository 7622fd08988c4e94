import { createHash } from "node:crypto";
import { bigintToLeBytes, fromHex, leBytesToBigint } from "../../proto/bytes.ts";
import { type LegacyTree, parseFinalState } from "../../proto/treestate/legacy-tree.ts";
import { EMPTY_FRONTIER, type Frontier, frontierFromLegacy, hashPair } from "../trees/index.ts";
import type { StartPlan } from "./start-frontier.ts";
import { hasherOf, modulusOf } from "./tree-engine.ts";

/** The start frontier a plan (start-frontier.ts) describes; runs on the tree worker. */

const bit = (n: number, l: number) => Math.floor(n / 2 ** l) % 2;

/** A deterministic canonical field element for a position no real data fixes. */
function filler(label: string, level: number, index: number): bigint {
  const b = createHash("sha256").update(`lightedge-devnode-frontier|${label}|${level}|${index}`).digest();
  b[31]! &= 0x3f;
  return leBytesToBigint(b);
}

/** The frontier a plan describes (hashes only to derive known nodes and the pending node). */
export function buildStartFrontier(plan: StartPlan): Frontier {
  const h = hasherOf(plan.pool);
  const modulus = modulusOf(plan.pool);
  if (plan.kind === "empty" || plan.size === 0) return EMPTY_FRONTIER;
  if (plan.kind === "real") return frontierFromLegacy(h, parseFinalState(plan.finalState!), modulus);
  const known = new Map<string, bigint>();
  for (const [l, i, v] of plan.known ?? [])
    known.set(`${l}:${i}`, leBytesToBigint(fromHex(v, "devnode.start")));
  const memo = new Map<string, bigint | undefined>();
  // A node the corpus fixes: given, or hashed from two such children.
  const derive = (l: number, i: number): bigint | undefined => {
    const key = `${l}:${i}`;
    if (known.has(key)) return known.get(key);
    if (memo.has(key)) return memo.get(key);
    let v: bigint | undefined;
    if (l > 0) {
      const a = derive(l - 1, 2 * i);
      const b = a === undefined ? undefined : derive(l - 1, 2 * i + 1);
      if (a !== undefined && b !== undefined) v = hashPair(h, l - 1, a, b);
    }
    memo.set(key, v);
    return v;
  };
  const node = (l: number, i: number) => derive(l, i) ?? filler(plan.label ?? plan.pool, l, i);
  const last = plan.size - 1;
  const bytes = bigintToLeBytes;
  const odd = bit(last, 0) === 1;
  const tree: LegacyTree = {
    left: bytes(odd ? node(0, last - 1) : node(0, last)),
    right: odd ? bytes(node(0, last)) : undefined,
    parents: Array.from({ length: 31 }, (_, k) =>
      bit(last, k + 1) ? bytes(node(k + 1, Math.floor(last / 2 ** (k + 1)) - 1)) : undefined,
    ),
  };
  return frontierFromLegacy(h, tree, modulus);
}
