import { parseArgs } from "node:util";
import pino from "pino";
import { reproject } from "../../history/reproject.ts";
import { openStore } from "../../store/index.ts";
import { type Command, UsageError } from "../command.ts";

const help = `usage: lightedge reproject --store SPEC --network NET [--to SPEC] [--concurrency N]

Rebuilds the compact projections (shielded, full, nullifiers) and metadata of every sealed range
from the store's raw-block objects, with no node: each raw block parsed and projected by the
indexer's own code, with the tree sizes the range's metadata records. The store's head must name
node-free history (\`lightedge origin\` writes it unless --history off).

Without --to it checks: every rebuilt range must equal the stored one byte for byte. Prints
"REPROJECTED <ranges> <identical> <differing>" and exits 1 when any range differs, listing them.
With --to it writes a complete new store there — rebuilt projections, metadata, block-hash index
and range ends, every other object copied, the head last — which is how a new projection version
is rolled out: rebuild into a new store (or prefix), then point the edge at it.

  --store SPEC         the store to read: dir:PATH | s3://BUCKET/PREFIX (S3_ENDPOINT, S3_REGION, …)
  --network NET        mainnet | testnet | regtest
  --to SPEC            write the rebuilt store here
  --concurrency N      ranges in flight (default 4)`;

async function run(argv: string[]): Promise<number> {
  let values: { store?: string; network?: string; to?: string; concurrency?: string };
  try {
    values = parseArgs({
      args: argv,
      options: {
        store: { type: "string" },
        network: { type: "string" },
        to: { type: "string" },
        concurrency: { type: "string" },
      },
      strict: true,
    }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (!values.store || !values.network) throw new UsageError("--store and --network are required");
  if (!/^(mainnet|testnet|regtest)$/.test(values.network))
    throw new UsageError(`--network must be mainnet, testnet or regtest (got "${values.network}")`);
  const concurrency = Number(values.concurrency ?? 4);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError("--concurrency must be ≥ 1");
  // Logs to stderr: stdout carries the one result line.
  const log = pino({ base: { service: "lightedge-reproject" } }, pino.destination(2));
  const result = await reproject({
    from: openStore(values.store),
    network: values.network,
    to: values.to === undefined ? undefined : openStore(values.to),
    concurrency,
    onRange: (index, identical) => log.debug({ range: index, identical }, "range reprojected"),
  });
  if (result.differing.length > 0)
    log.warn(
      { differing: result.differing.slice(0, 100) },
      "ranges whose rebuilt projections differ from the store's",
    );
  if (values.to !== undefined) log.info({ written: result.written, to: values.to }, "rebuilt store written");
  process.stdout.write(`REPROJECTED ${result.ranges} ${result.identical} ${result.differing.length}\n`);
  return result.differing.length > 0 && values.to === undefined ? 1 : 0;
}

export const command: Command = {
  summary:
    "rebuild a store's compact projections from its raw blocks, with no node (check, or write a new store)",
  help,
  run,
};
