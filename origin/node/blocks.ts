import { LightedgeError } from "../../proto/errors.ts";
import { NodeRpcError } from "./errors.ts";
import { hash, hexBytes, int, obj, optInt } from "./parse.ts";
import type { ChainSource, NodeBlock, RawBlockRun, TreeSizes } from "./ports.ts";
import { badResponse, type RpcCaller } from "./rpc.ts";

const zeroHash = "0".repeat(64);

/** The chain role: the tip, hashes by height, blocks by hash and by height range. */
export function chainMethods(rpc: RpcCaller, batchSize: number): ChainSource {
  return {
    async bestBlock() {
      // One call so height and hash describe the same tip.
      const ci = obj("getblockchaininfo", await rpc.call("getblockchaininfo", []), "result");
      return {
        height: int("getblockchaininfo", ci.blocks, "blocks"),
        displayHash: hash("getblockchaininfo", ci.bestblockhash, "bestblockhash"),
      };
    },
    blockHash: (height) => blockHashAt(rpc, height),
    block: (displayHash) => fetchBlock(rpc, displayHash),
    blocks: (from, to) => fetchBlocks(rpc, from, to, batchSize),
    rawBlocks: (from, to) => fetchRawBlocks(rpc, from, to, batchSize),
  };
}

/**
 * getblockhash, with a height past the tip as an above-tip error: zebrad 7.0.0 answers −1
 * "Provided index is greater than the current tip" (older zebrad and the dev node −32602, same
 * message), zcashd −8 (mapped to above-tip by errors.ts).
 */
export async function blockHashAt(rpc: RpcCaller, height: number, signal?: AbortSignal): Promise<string> {
  return hash("getblockhash", await rpc.call("getblockhash", [height], signal).catch(aboveTip), "result");
}

function aboveTip(err: unknown): never {
  if (
    err instanceof NodeRpcError &&
    (err.code === -32602 || err.code === -1) &&
    /tip|range/i.test(err.message)
  )
    throw new NodeRpcError("above-tip", err.where, err.message, { failure: "node-error", code: err.code });
  throw err;
}

/** Fetches one block by hash: raw bytes (verbosity 0) and metadata (verbosity 1) in one batch. */
export async function fetchBlock(rpc: RpcCaller, displayHash: string): Promise<NodeBlock> {
  try {
    const [raw, meta] = await rpc.batch<unknown>([
      { method: "getblock", params: [displayHash, 0] },
      { method: "getblock", params: [displayHash, 1] },
    ]);
    return toNodeBlock(displayHash, raw, meta);
  } catch (err) {
    // By hash, zebrad's −8 "Block not found" means an unknown (or abandoned) block, not "above tip".
    if (err instanceof NodeRpcError && err.code === -8)
      throw new NodeRpcError("not-found", err.where, err.message, { failure: "node-error", code: -8 });
    throw err;
  }
}

/**
 * Fetches main-chain blocks from..to: hashes in batches, then raw+meta by hash in batches,
 * the batches running in parallel (the transport bounds what is in flight).
 */
export async function fetchBlocks(
  rpc: RpcCaller,
  from: number,
  to: number,
  batchSize: number,
): Promise<NodeBlock[]> {
  const heights = heightsOf(from, to);
  const hashes = (
    await Promise.all(
      chunks(heights, batchSize).map((hs) =>
        rpc.batch<unknown>(hs.map((h) => ({ method: "getblockhash", params: [h] }))),
      ),
    )
  ).flat();
  const pairs = Math.max(1, Math.floor(batchSize / 2));
  const checked = hashes.map((h) => hash("getblockhash", h, "result"));
  const parts = await Promise.all(
    chunks(checked, pairs).map(async (hs) => {
      const answers = await rpc.batch<unknown>(
        hs.flatMap((h) => [
          { method: "getblock", params: [h, 0] },
          { method: "getblock", params: [h, 1] },
        ]),
      );
      return hs.map((h, i) => toNodeBlock(h, answers[2 * i], answers[2 * i + 1]));
    }),
  );
  return parts.flat();
}

/**
 * Raw blocks from..to by height, in batches running in parallel; the last batch also asks for the
 * last block's verbose answer (its hash and tree sizes). Heights are strings: zcashd reads a number
 * as a hash. A height the node does not have is above-tip (zebrad −8 "Block not found", the dev
 * node's −8, zcashd −8 "Block height out of range").
 */
export async function fetchRawBlocks(
  rpc: RpcCaller,
  from: number,
  to: number,
  batchSize: number,
): Promise<RawBlockRun> {
  const m = "getblock";
  const heights = heightsOf(from, to);
  const batches = chunks(heights, batchSize);
  const answers = await Promise.all(
    batches.map((hs, b) => {
      const calls = hs.map((h) => ({ method: m, params: [String(h), 0] }));
      if (b === batches.length - 1) calls.push({ method: m, params: [String(to), 1] });
      return rpc.batch<unknown>(calls).catch(byHeightAboveTip);
    }),
  );
  const flat = answers.flat();
  const meta = obj(m, flat.pop(), "result");
  if (int(m, meta.height, "height") !== to)
    throw badResponse(m, `answer is for height ${String(meta.height)}, not ${to}`);
  return {
    from,
    raws: flat.map((raw) => hexBytes(m, raw, "raw block")),
    last: { displayHash: hash(m, meta.hash, "hash"), treeSizes: treeSizes(meta.trees) },
  };
}

function byHeightAboveTip(err: unknown): never {
  if (err instanceof NodeRpcError && err.code === -8)
    throw new NodeRpcError("above-tip", err.where, err.message, { failure: "node-error", code: -8 });
  return aboveTip(err);
}

function toNodeBlock(displayHash: string, raw: unknown, meta: unknown): NodeBlock {
  const m = "getblock";
  const o = obj(m, meta, "result");
  if (hash(m, o.hash, "hash") !== displayHash)
    throw badResponse(m, `answer is for block ${String(o.hash)}, not ${displayHash}`);
  const txids = (Array.isArray(o.tx) ? o.tx : []).map((t) =>
    hash(m, typeof t === "string" ? t : (t as { txid?: unknown })?.txid, "tx[]"),
  );
  return {
    raw: hexBytes(m, raw, "raw block"),
    height: int(m, o.height, "height"),
    displayHash,
    prevDisplayHash:
      o.previousblockhash === undefined ? zeroHash : hash(m, o.previousblockhash, "previousblockhash"),
    treeSizes: treeSizes(o.trees),
    time: int(m, o.time, "time"),
    txids,
  };
}

/** trees.{sapling,orchard,ironwood}.size; zebrad omits a pool whose tree is empty. */
function treeSizes(value: unknown): TreeSizes {
  const t = value === undefined || value === null ? {} : obj("getblock", value, "trees");
  const size = (pool: string) =>
    t[pool] === undefined
      ? 0
      : optInt("getblock", obj("getblock", t[pool], `trees.${pool}`).size, `trees.${pool}.size`, 0);
  return { sapling: size("sapling"), orchard: size("orchard"), ironwood: size("ironwood") };
}

/** Heights from..to, ascending; a range that is not one is refused before any call. */
function heightsOf(from: number, to: number): number[] {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0 || to < from)
    throw new LightedgeError("bad-request", "node-client.blocks", `blocks: bad range ${from}..${to}`);
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
