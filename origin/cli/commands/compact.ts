import { readFile } from "node:fs/promises";
import { toHex } from "../../../proto/bytes.ts";
import { type PoolSet, poolSetFromNames } from "../../../proto/pools.ts";
import { compactBlockBytes, parseBlock, type TreeSizes } from "../../chain/index.ts";
import { decodeHexOrRaw } from "../../chain/input.ts";
import { type Command, UsageError } from "../command.ts";

const help = `usage: lightedge compact [--shielded | --pools transparent,sapling,orchard,ironwood]
                        [--nullifiers] [--tree-sizes SAPLING,ORCHARD,IRONWOOD] FILE...

Parses each raw block (hex text or raw bytes; "-" = stdin) and prints one line per file:
FILE<TAB>hex of the CompactBlock protobuf.

  (no pool flag)   full projection, as GetBlock returns it: every tx, every pool
  --shielded       Sapling + Orchard + Ironwood, as GetBlockRange with empty poolTypes
  --pools LIST     GetBlockRange with these poolTypes (txs left with no components dropped)
  --nullifiers     prune to nullifiers, tree sizes zeroed (GetBlockNullifiers; with a pool
                   flag, GetBlockRangeNullifiers)
  --tree-sizes S,O,I   chainMetadata tree sizes (from the node's getblock 1 "trees")
  --zero-txids     32 zero bytes per txid (reproduces lightwalletd's parser fixture)
  --non-strict     accept v6 test vectors' placeholder group id 0xFFFFFFFF

Errors go to stderr with the file, tx index and byte offset; the exit code is then 1.`;

interface CompactArgs {
  projection: "full" | PoolSet;
  nullifiers: boolean;
  treeSizes?: TreeSizes;
  zeroTxids: boolean;
  strictV6: boolean;
  files: string[];
}

function parseTreeSizes(value: string | undefined): TreeSizes {
  const parts = (value ?? "").split(",");
  if (parts.length !== 3 || parts.some((p) => !/^\d+$/.test(p) || Number(p) > 0xffffffff)) {
    throw new UsageError(`--tree-sizes wants three uint32s, SAPLING,ORCHARD,IRONWOOD (got "${value ?? ""}")`);
  }
  const [sapling, orchard, ironwood] = parts.map(Number) as [number, number, number];
  return { sapling, orchard, ironwood };
}

function parsePools(value: string | undefined): PoolSet {
  try {
    return poolSetFromNames((value ?? "").split(","));
  } catch (err) {
    throw new UsageError(`--pools: ${(err as Error).message}`);
  }
}

export function parseCompactArgs(argv: string[]): CompactArgs {
  const args: CompactArgs = {
    projection: "full",
    nullifiers: false,
    zeroTxids: false,
    strictV6: true,
    files: [],
  };
  let poolFlag = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--shielded" || a === "--pools") {
      if (poolFlag) throw new UsageError("give at most one of --shielded and --pools");
      poolFlag = true;
      args.projection =
        a === "--shielded" ? poolSetFromNames(["sapling", "orchard", "ironwood"]) : parsePools(argv[++i]);
    } else if (a === "--nullifiers") args.nullifiers = true;
    else if (a === "--tree-sizes") args.treeSizes = parseTreeSizes(argv[++i]);
    else if (a === "--zero-txids") args.zeroTxids = true;
    else if (a === "--non-strict") args.strictV6 = false;
    else if (a.startsWith("--")) throw new UsageError(`unknown option ${a}`);
    else args.files.push(a);
  }
  if (args.files.length === 0) throw new UsageError("no FILE given");
  return args;
}

/** Reads FILE ("-" = stdin) and decodes hex text or raw bytes. */
export async function readInputFile(file: string): Promise<Uint8Array> {
  if (file !== "-") return decodeHexOrRaw(await readFile(file));
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return decodeHexOrRaw(Buffer.concat(chunks));
}

/** Runs `line(bytes)` per file; prints FILE<TAB>result or FILE: error. Returns the exit code. */
export async function eachFile(
  name: string,
  files: string[],
  line: (bytes: Uint8Array) => string,
): Promise<number> {
  let failed = 0;
  for (const file of files) {
    try {
      process.stdout.write(`${file}\t${line(await readInputFile(file))}\n`);
    } catch (err) {
      failed++;
      process.stderr.write(
        `lightedge ${name}: ${file}: ${err instanceof Error ? err.message : String(err)}\n`,
      );
    }
  }
  return failed === 0 ? 0 : 1;
}

export const command: Command = {
  summary: "raw blocks → CompactBlock protobuf hex (full, by pools, or nullifiers)",
  help,
  run: async (argv) => {
    const args = parseCompactArgs(argv);
    const options = { strictV6: args.strictV6 };
    return eachFile("compact", args.files, (bytes) => {
      const block = parseBlock(bytes, options);
      return toHex(compactBlockBytes(block, { ...args, projection: args.projection }));
    });
  },
};
